// The web package README's computed parts: the subset tool's sizes for a few
// selections and the lists of functions that need the opaque zero, between
// <!-- NAME --> and <!-- /NAME --> markers.
//
//   node web/test/readme.mjs --check web/README.md   (fails when a part is stale)
//   node web/test/readme.mjs --write web/README.md
import fs from 'node:fs';
import zlib from 'node:zlib';
import * as a from '../index.js';

const SELECTIONS = [
  ['the whole WGSL core, strict build (`wgslCore`)', null, {}],
  ['the whole WGSL core, default build (`wgslCoreFast`)', null, { core: 'fast' }],
  ['`aether_vec3f_dot`, `aether_vec3f_normalize`', ['aether_vec3f_dot', 'aether_vec3f_normalize'], {}],
  ['`aether_mat4f_mul`, `aether_mat4f_mul_vec`, `aether_quatf_rotate`', ['aether_mat4f_mul', 'aether_mat4f_mul_vec', 'aether_quatf_rotate'], {}],
  ['`aether_pairf_neumaier_add`, `aether_pairf_value` (a compensated sum)', ['aether_pairf_neumaier_add', 'aether_pairf_value'], {}],
  ['`aether_f32_sin`, `aether_f32_cos`, `aether_f32_exp`', ['aether_f32_sin', 'aether_f32_cos', 'aether_f32_exp'], {}],
  ['`aether_mat4f_inverse`', ['aether_mat4f_inverse'], {}],
  ['`aether_mat4f_inverse`, default build', ['aether_mat4f_inverse'], { core: 'fast' }],
  ['`aether_selftest` (what runSelfTest compiles)', ['aether_selftest'], {}],
  ['the whole WGSL df64 (`wgslDf64`)', null, { core: 'df64' }],
  ['df64 `aether_vec3d_add`, `aether_vec3d_sub`', ['aether_vec3d_add', 'aether_vec3d_sub'], { core: 'df64' }],
  ['the whole GLSL ES core (`glslCore`)', null, { language: 'glsl' }],
  ['GLSL `aether_vec3f_dot`, `aether_vec3f_normalize`', ['aether_vec3f_dot', 'aether_vec3f_normalize'], { language: 'glsl' }],
];

function sizes() {
  const rows = ['| selection | items | bytes | gzipped |', '|---|---:|---:|---:|'];
  for (const [label, names, o] of SELECTIONS) {
    const src = names ? a.subset(names, o) : a.coreSource(o);
    const items = names ? a.closure(names, o).items.length : a.itemTable(o).length;
    rows.push(`| ${label} | ${items} | ${src.length} | ${zlib.gzipSync(src, { level: 9 }).length} |`);
  }
  return rows.join('\n');
}

const code = (names) => names.map((n) => `\`${n}\``).join(', ');
const fnNames = (o) => [...new Set(a.itemTable(o).filter((i) => i.kind === 'fn' && !/_set_opaque_/.test(i.name)).map((i) => i.name))];

function opaqueZero() {
  const out = [];
  for (const language of ['wgsl', 'glsl']) {
    const L = language === 'wgsl' ? 'WGSL' : 'GLSL ES';
    if (language === 'wgsl') {
      // The strict build guards every rounded result: nearly every function needs the zero.
      const need = a.needsOpaqueZero({ language });
      const not = fnNames({ language }).filter((n) => !need.includes(n));
      out.push(`- ${L} core, strict build (\`aether_set_opaque_zero\`): ${need.length} of its ${need.length + not.length} functions, all but ${code(not)}.`);
      out.push(`- ${L} core, default build (\`core: 'fast'\`, \`aether_set_opaque_zero\`): ${code(a.needsOpaqueZero({ language, core: 'fast' }))}.`);
    } else {
      out.push(`- ${L} core (\`aether_set_opaque_zero\`): ${code(a.needsOpaqueZero({ language }))}.`);
    }
    const need = a.needsOpaqueZero({ language, core: 'df64' });
    const not = fnNames({ language, core: 'df64' }).filter((n) => !need.includes(n));
    out.push(`- ${L} df64 (\`aether_df64_set_opaque_zero\`): ${need.length} of its ${need.length + not.length} functions, all but ${code(not)}.`);
    const pred = a.needsOpaqueZero({ language, core: 'predicate' });
    out.push(`- ${L} predicates: ${pred.length ? code(pred) : 'none'}.`);
  }
  return out.join('\n');
}

const PARTS = { sizes, 'opaque-zero': opaqueZero };

const [mode, file] = process.argv.slice(2);
if (!file || !['--check', '--write'].includes(mode)) {
  console.error('usage: node web/test/readme.mjs --check|--write README.md');
  process.exit(64);
}
let text = fs.readFileSync(file, 'utf8');
let stale = [];
for (const [name, make] of Object.entries(PARTS)) {
  const open = `<!-- ${name} -->\n`;
  const close = `<!-- /${name} -->`;
  const i = text.indexOf(open);
  const j = text.indexOf(close);
  if (i < 0 || j < i) {
    console.error(`${file}: no ${open.trim()} ... ${close} part`);
    process.exit(2);
  }
  const want = `${make()}\n`;
  if (text.slice(i + open.length, j) !== want) {
    stale.push(name);
    text = text.slice(0, i + open.length) + want + text.slice(j);
  }
}
if (mode === '--write') {
  fs.writeFileSync(file, text);
  console.log(`${file}: ${stale.length ? `rewrote ${stale.join(', ')}` : 'current'}`);
} else if (stale.length) {
  console.error(`${file}: stale ${stale.join(', ')} (node web/test/readme.mjs --write ${file})`);
  process.exit(1);
} else {
  console.log(`${file}: the sizes and the opaque-zero lists are current`);
}
