// The subset tool: the source of the named functions of a core with exactly
// what they call, in the core's order and bytes (the bits are the whole
// core's), read off the item table the generator computes from the generated
// cores (generated/items.js).
import * as sources from './generated/sources.js';
import { items as tables } from './generated/items.js';

// The cores by language and name: the export of generated/sources.js.
const CORES = {
  // core: the strict build (every rounded result guarded); fast: the default build.
  wgsl: { core: 'wgslCore', fast: 'wgslCoreFast', df64: 'wgslDf64', predicate: 'wgslPredicate' },
  glsl: { core: 'glslCore', df64: 'glslDf64', predicate: 'glslPredicate' },
};

/** The export name of a core: `{language: 'wgsl'|'glsl', core: 'core'|'fast'|'df64'|'predicate'}` ('fast': WGSL only). */
export function coreKey({ language = 'wgsl', core = 'core' } = {}) {
  const byCore = CORES[language];
  if (!byCore) throw new Error(`aether subset: no language ${JSON.stringify(language)} (wgsl or glsl)`);
  const key = byCore[core];
  if (!key) throw new Error(`aether subset: no core ${JSON.stringify(core)} (core, ${language === 'wgsl' ? 'fast, ' : ''}df64 or predicate)`);
  return key;
}

/** The whole source of a core. */
export function coreSource(options = {}) {
  return sources[coreKey(options)];
}

/** The item table of a core: [{index, kind, name, start, end, deps}]. */
export function itemTable(options = {}) {
  const key = coreKey(options);
  return tables[key].map(([kind, name, start, end, deps], index) => ({ index, kind, name, start, end, deps }));
}

// The names asked for: a string, or a non-empty array of strings (anything else is a TypeError,
// never a partial source).
function nameList(names) {
  const list = typeof names === 'string' ? [names] : Array.isArray(names) ? [...names] : null;
  if (list === null || list.some((n) => typeof n !== 'string')) {
    throw new TypeError(`aether subset: names must be a string or an array of strings, not ${describe(names)}`);
  }
  if (list.length === 0) throw new RangeError('aether subset: no names given');
  return list;
}

function describe(v) {
  if (Array.isArray(v)) return `an array holding ${v.map((x) => (typeof x === 'string' ? 'a string' : describe(x))).join(', ')}`;
  return v === null ? 'null' : typeof v;
}

// The setters of the opaque words (aether_set_opaque_zero, aether_df64_set_opaque_zero, ...):
// the functions named *set_opaque_* that write a module variable.
function setters(table) {
  return table.filter((it) => it.kind === 'fn' && /_set_opaque_/.test(it.name));
}

/**
 * What `subset` would return, item by item: the indices and items of the
 * closure, in the core's order, and which opaque-zero setter the entry point
 * must call (null when none).
 */
export function closure(names, options = {}) {
  const table = itemTable(options);
  const text = coreSource(options);
  const list = nameList(names);
  const byName = new Map();
  for (const it of table) {
    if (!byName.has(it.name)) byName.set(it.name, []);
    byName.get(it.name).push(it.index);
  }
  const missing = list.filter((n) => !byName.has(n));
  if (missing.length) {
    throw new Error(`aether subset: no item ${missing.join(', ')} in the ${options.language ?? 'wgsl'} ${options.core ?? 'core'} core`);
  }
  const keep = new Set();
  const stack = list.flatMap((n) => byName.get(n));
  const visit = () => {
    while (stack.length) {
      const i = stack.pop();
      if (keep.has(i)) continue;
      keep.add(i);
      stack.push(...table[i].deps);
    }
  };
  visit();
  // A module variable set through a setter comes with its setter (else nothing could set it).
  let zeroSetter = null;
  for (const s of setters(table)) {
    if (s.deps.some((d) => keep.has(d) && table[d].kind === 'var')) {
      stack.push(s.index);
      if (/_set_opaque_zero$/.test(s.name)) zeroSetter = s.name;
    }
  }
  visit();
  const indices = [...keep].sort((a, b) => a - b);
  return {
    indices,
    items: indices.map((i) => ({ ...table[i], text: text.slice(table[i].start, table[i].end) })),
    opaqueZeroSetter: zeroSetter,
  };
}

/**
 * The WGSL declaration of the opaque-zero uniform: a vec4<u32> that the host
 * leaves zero (createOpaqueZero in gpu.js); its `.x` goes to
 * aether_set_opaque_zero / aether_df64_set_opaque_zero. GLSL: a `uniform uint`
 * (GL sets every uniform to zero at link).
 */
export function opaqueZeroDeclaration({ language = 'wgsl', group = 0, binding = 16, name = 'aether_zero' } = {}) {
  if (language === 'glsl') return `uniform uint ${name}; // zero: GL initializes every uniform to 0 at link\n`;
  return `@group(${group}) @binding(${binding}) var<uniform> ${name}: vec4<u32>; // all zero (createOpaqueZero)\n`;
}

/**
 * The source of the named items (functions, structs, constants) of a core with
 * every item they reference, transitively, in the core's order and bytes.
 *
 * options: language ('wgsl' default, or 'glsl'), core ('core' default: for
 * WGSL the strict build; 'fast': WGSL's default build; 'df64', 'predicate'), opaqueZero ({group, binding, name} for the uniform's
 * declaration, added when the selection needs the opaque zero; default group 0,
 * binding 16, name aether_zero; false: leave it out), header (default true: a
 * comment naming the selection and the call the entry point must make).
 */
export function subset(names, options = {}) {
  const { language = 'wgsl', core = 'core', opaqueZero = {}, header = true } = options;
  const c = closure(names, { language, core });
  const list = nameList(names);
  let out = '';
  if (header) {
    out += `// aether ${sources.version} ${language.toUpperCase()} ${core} (contract ${sources.contractId}), subset: ${list.join(', ')}\n`;
    out += `// and the ${c.items.length - list.length} items they reference, in the core's order and bytes (web/subset.js).\n`;
    if (c.opaqueZeroSetter) {
      const zname = opaqueZero && opaqueZero.name ? opaqueZero.name : 'aether_zero';
      out += opaqueZero === false
        ? `// Every entry point that calls these must first call ${c.opaqueZeroSetter}(z), z a zero read from a buffer.\n`
        : `// Every entry point that calls these must first call ${c.opaqueZeroSetter}(${zname}${language === 'wgsl' ? '.x' : ''}).\n`;
    }
    out += '\n';
  }
  if (c.opaqueZeroSetter && opaqueZero !== false) {
    out += opaqueZeroDeclaration({ language, ...opaqueZero });
    out += '\n';
  }
  out += c.items.map((it) => it.text).join("\n");
  return out;
}

/** Every item of a core whose closure needs the opaque zero (its setter excluded). */
export function needsOpaqueZero(options = {}) {
  const table = itemTable(options);
  return table
    .filter((it) => !/_set_opaque_/.test(it.name) && it.kind !== 'var' && it.kind !== 'prototype')
    .filter((it) => closure([it.name], options).opaqueZeroSetter !== null)
    .map((it) => it.name)
    .filter((n, i, a) => a.indexOf(n) === i);
}
