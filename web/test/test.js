// The web package's browser test (scripts/web.sh loads test.html in headless
// Chromium and reads window.aetherTest): bits of a few functions against the
// reference's (cases.json, reference/examples/web_cases.rs) through WebGPU and
// WebGL2, in the whole-core and the subset forms; every item of every core
// compiled with what the subset tool gives it; the negative control; the
// WebGPU and WebGL2 self-tests.
import * as aether from '../index.js';
import * as h from './harness.js';

const lines = [];
function say(s) {
  lines.push(s);
  console.log(s);
  document.getElementById('log').textContent = lines.join('\n');
}

const hex = (w) => `0x${(w >>> 0).toString(16).padStart(8, '0')}`;

// Compares got with the reference's outputs: {cases, equal, first} (first: the first differing case).
function compare(fn, got) {
  let equal = 0;
  let first = null;
  fn.outputs.forEach((want, i) => {
    const g = got[i];
    if (g.length === want.length && g.every((w, k) => w === want[k])) equal += 1;
    else if (!first) first = `case ${i}: inputs ${fn.inputs[i].map(hex).join(' ')} gave ${g.map(hex).join(' ')}, the reference ${want.map(hex).join(' ')}`;
  });
  return { cases: fn.outputs.length, equal, first };
}

// Every item of a core with the subset tool's closure must compile; returns the failures.
async function checkItemsWgsl(device, core) {
  const table = aether.itemTable({ language: 'wgsl', core });
  const fails = [];
  for (const it of table) {
    const code = aether.subset([it.name], { language: 'wgsl', core });
    const { errors } = await h.compileErrors(device, code, `item ${it.name}`);
    if (errors.length) fails.push(`${it.name}: ${errors[0]}`);
  }
  return { items: table.length, fails };
}

function checkItemsGlsl(gl, core) {
  const table = aether.itemTable({ language: 'glsl', core });
  const fails = [];
  const names = [...new Set(table.map((it) => it.name))];
  for (const name of names) {
    const code = `#version 300 es\nprecision highp float;\nprecision highp int;\n${aether.subset([name], { language: 'glsl', core })}\nvoid main() { gl_Position = vec4(0.0); }\n`;
    const { errors } = h.glslCompileErrors(gl, gl.VERTEX_SHADER, code);
    if (errors.length) fails.push(`${name}: ${errors[0]}`);
  }
  return { items: names.length, fails };
}

// The subset's source with the text of one item it needs taken out.
function dropOne(names, language, drop) {
  const c = aether.closure(names, { language });
  const it = c.items.find((x) => x.name === drop);
  if (!it) throw new Error(`negative control: ${drop} is not in the closure of ${names.join(', ')}`);
  const full = aether.subset(names, { language });
  const at = full.indexOf(it.text);
  if (at < 0) throw new Error('negative control: the item text is not in the subset');
  return { full, dropped: full.slice(0, at) + full.slice(at + it.text.length) };
}

async function main() {
  const result = { ok: true, failures: [], lines };
  const fail = (s) => {
    result.ok = false;
    result.failures.push(s);
    say(`FAIL ${s}`);
  };
  const cases = await (await fetch('../../cases.json')).json();
  const fns = cases.functions;
  say(`aether ${aether.version}, ${aether.contractId}; ${fns.length} functions, ${fns.reduce((s, f) => s + f.inputs.length, 0)} cases`);

  // ---- WebGPU ----
  if (!navigator.gpu) throw new Error('no navigator.gpu (WebGPU is off in this browser)');
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter');
  const device = await adapter.requestDevice();
  const ai = adapter.info || {};
  result.webgpuAdapter = `${ai.vendor} ${ai.architecture} ${ai.description || ''}`.trim();
  say(`WebGPU adapter: ${result.webgpuAdapter}`);

  let t = performance.now();
  for (const core of ['core', 'df64', 'predicate']) {
    const r = await checkItemsWgsl(device, core);
    say(`WGSL ${core}: ${r.items - r.fails.length} of ${r.items} items compile with their subset closure`);
    for (const f of r.fails) fail(`WGSL ${core} item ${f}`);
  }
  say(`  (${Math.round(performance.now() - t)} ms)`);

  // The negative control: dot without the struct it takes.
  {
    const { full, dropped } = dropOne(['aether_vec3f_dot'], 'wgsl', 'aether_vec3f');
    const a = await h.compileErrors(device, full, 'control full');
    const b = await h.compileErrors(device, dropped, 'control dropped');
    if (a.errors.length) fail(`negative control: the full subset does not compile: ${a.errors[0]}`);
    if (!b.errors.length) fail('negative control: the subset without aether_vec3f compiled (it must not)');
    else say(`negative control (WGSL): subset(aether_vec3f_dot) without struct aether_vec3f fails to compile, as it must: ${b.errors[0]}`);
    result.negativeWgsl = b.errors[0] ?? null;
  }

  // Exactly what they call: each item of a compared function's subset, dropped, breaks it
  // (the opaque-zero setters aside: they come with the variable they set, for the caller).
  {
    let dropped = 0;
    for (const fn of fns) {
      const core = fn.core === 'df64' ? 'df64' : 'core';
      const c = aether.closure([fn.name], { language: 'wgsl', core });
      const full = aether.subset([fn.name], { language: 'wgsl', core });
      for (const it of c.items) {
        if (it.name === fn.name || /_set_opaque_/.test(it.name)) continue;
        const at = full.indexOf(it.text);
        const { errors } = await h.compileErrors(device, full.slice(0, at) + full.slice(at + it.text.length), `drop ${it.name}`);
        if (!errors.length) fail(`subset(${fn.name}) compiles without ${it.name}: the tool gave an item it does not need`);
        dropped += 1;
      }
    }
    say(`WGSL: each of the ${dropped} items the ${fns.length} compared functions' subsets carry, dropped alone, breaks the compile`);
  }

  const record = (api, form, fn, got) => {
    const c = compare(fn, got);
    const line = `${api} ${form} ${fn.name}: ${c.equal}/${c.cases} cases bit-identical to the reference`;
    if (c.equal !== c.cases) fail(`${line}; ${c.first}`);
    else say(line);
    result.compared = (result.compared || 0) + c.cases;
  };

  t = performance.now();
  const whole = await h.compileErrors(device, h.wgslWhole(fns, aether.wgslCore, aether.wgslDf64), 'whole');
  if (whole.errors.length) fail(`WGSL whole module: ${whole.errors.slice(0, 3).join('; ')}`);
  else for (const [i, fn] of fns.entries()) record('WebGPU', 'whole', fn, await h.runWgsl(device, whole.module, `e${i}`, fn));
  for (const fn of fns) {
    const m = await h.compileErrors(device, h.wgslSubset(fn), `subset ${fn.name}`);
    if (m.errors.length) fail(`WGSL subset ${fn.name}: ${m.errors[0]}`);
    else record('WebGPU', 'subset', fn, await h.runWgsl(device, m.module, 'e0', fn));
  }
  say(`  (WebGPU functions: ${Math.round(performance.now() - t)} ms)`);

  for (const form of ['subset', 'whole']) {
    try {
      const r = await aether.runSelfTest(device, form === 'whole' ? { whole: true, wholeSource: aether.wgslCore } : {});
      say(`WebGPU self-test (${form}, pipeline built in ${r.buildMs} ms): ${r.text}`);
      result[`selftestWebgpu_${form}`] = { ...r.fields, buildMs: r.buildMs };
      if (!r.passed) fail(`WebGPU self-test (${form}): ${r.text}`);
    } catch (e) {
      fail(`WebGPU self-test (${form}): ${e.message}`);
    }
  }

  // The README's quick start, as written (its import resolves through test.html's import map).
  try {
    const readme = await (await fetch('../README.md')).text();
    const m = readme.match(/<!-- quickstart -->\n```js\n([\s\S]*?)\n```/);
    if (!m) throw new Error('no quick start block in web/README.md');
    const logged = [];
    const log = console.log;
    console.log = (...args) => logged.push(args.join(' '));
    try {
      await import(URL.createObjectURL(new Blob([m[1]], { type: 'text/javascript' })));
    } finally {
      console.log = log;
    }
    say(`README quick start ran: ${logged.join(' | ')}`);
    if (!logged.some((l) => l === 'sum of the dots: 1')) fail(`README quick start: the sum is not 1: ${logged.join(' | ')}`);
    if (!logged.some((l) => l.startsWith('self-test passed'))) fail(`README quick start: the self-test did not pass: ${logged.join(' | ')}`);
  } catch (e) {
    fail(`README quick start: ${e.message}`);
  }

  // ---- WebGL2 ----
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) throw new Error('no WebGL2 context');
  const dbg = gl.getExtension('WEBGL_debug_renderer_info');
  result.webglRenderer = dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
  say(`WebGL2 renderer: ${result.webglRenderer}`);
  t = performance.now();
  for (const core of ['core', 'df64', 'predicate']) {
    const r = checkItemsGlsl(gl, core);
    say(`GLSL ${core}: ${r.items - r.fails.length} of ${r.items} names compile with their subset closure`);
    for (const f of r.fails) fail(`GLSL ${core} item ${f}`);
  }
  say(`  (${Math.round(performance.now() - t)} ms)`);
  {
    const { full, dropped } = dropOne(['aether_vec3f_dot'], 'glsl', 'aether_vec3f');
    const src = (s) => `#version 300 es\nprecision highp float;\nprecision highp int;\n${s}\nvoid main() { gl_Position = vec4(0.0); }\n`;
    const a = h.glslCompileErrors(gl, gl.VERTEX_SHADER, src(full));
    const b = h.glslCompileErrors(gl, gl.VERTEX_SHADER, src(dropped));
    if (a.errors.length) fail(`negative control (GLSL): the full subset does not compile: ${a.errors[0]}`);
    if (!b.errors.length) fail('negative control (GLSL): the subset without aether_vec3f compiled (it must not)');
    else say(`negative control (GLSL): subset(aether_vec3f_dot) without struct aether_vec3f fails to compile, as it must: ${b.errors[0].split('\n')[0]}`);
    result.negativeGlsl = b.errors[0] ?? null;
  }
  t = performance.now();
  try {
    const p = h.glslProgram(gl, h.glslWhole(fns, aether.glslCore, aether.glslDf64));
    for (const [i, fn] of fns.entries()) record('WebGL2', 'whole', fn, h.runGlsl(gl, p, i, fn));
  } catch (e) {
    fail(`WebGL2 whole: ${e.message}`);
  }
  for (const fn of fns) {
    try {
      const p = h.glslProgram(gl, h.glslSubset(fn));
      record('WebGL2', 'subset', fn, h.runGlsl(gl, p, 0, fn));
    } catch (e) {
      fail(`WebGL2 subset ${fn.name}: ${e.message}`);
    }
  }
  say(`  (WebGL2 functions: ${Math.round(performance.now() - t)} ms)`);
  try {
    t = performance.now();
    const r = aether.describeSelfTest(h.glslSelfTest(gl, aether.selftestFields));
    say(`WebGL2 self-test (GLSL subset, vertex shader, ${Math.round(performance.now() - t)} ms): ${r.text}`);
    result.selftestWebgl2 = r.fields;
    if (!r.passed) fail(`WebGL2 self-test: ${r.text}`);
  } catch (e) {
    fail(`WebGL2 self-test: ${e.message}`);
  }
  say(result.ok ? `PASS: ${result.compared} comparisons bit-identical` : `FAILED: ${result.failures.length} failures`);
  return result;
}

window.aetherTest = main().catch((e) => ({ ok: false, failures: [`${e && e.stack ? e.stack : e}`], lines }));
