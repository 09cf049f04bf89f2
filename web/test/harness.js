// The browser test's shader harness: runs a function of the aether cores on
// word inputs through WebGPU (a compute entry point per function) and through
// WebGL2 (a vertex shader per function, results by transform feedback), from
// the whole cores and from the subset tool's output.
import { subset, closure, opaqueZeroDeclaration, OPAQUE_ZERO_BINDING } from '../index.js';

// Words of each parameter/result type (the reference's flat order = the structs' member order).
export const WORDS = { f32: 1, vec3f: 3, quatf: 4, vec4f: 4, mat4f: 16, pairf: 2, pairf32: 64, df64: 2, vec2d: 4 };

const STRUCT = { vec3f: ['aether_vec3f', ['x', 'y', 'z']], vec4f: ['aether_vec4f', ['x', 'y', 'z', 'w']], quatf: ['aether_quatf', ['w', 'x', 'y', 'z']], pairf: ['aether_pairf', ['hi', 'comp']] };

// An expression building a value of type `ty` from the words at offset `o`; `L(k)` is the float of word k.
function load(ty, o, L, lang) {
  const fl = (n) => Array.from({ length: n }, (_, k) => L(o + k));
  if (ty === 'f32') return L(o);
  if (STRUCT[ty]) return `${STRUCT[ty][0]}(${fl(WORDS[ty]).join(', ')})`;
  if (ty === 'mat4f') return lang === 'wgsl' ? `aether_mat4f(array<f32, 16>(${fl(16).join(', ')}))` : `aether_mat4f(float[16](${fl(16).join(', ')}))`;
  if (ty === 'pairf32') {
    const ps = Array.from({ length: 32 }, (_, k) => `aether_pairf(${L(o + 2 * k)}, ${L(o + 2 * k + 1)})`);
    return lang === 'wgsl' ? `array<aether_pairf, 32>(${ps.join(', ')})` : `aether_pairf[32](${ps.join(', ')})`;
  }
  if (ty === 'df64') return lang === 'wgsl' ? `vec2<f32>(${L(o)}, ${L(o + 1)})` : `vec2(${L(o)}, ${L(o + 1)})`;
  throw new Error(`harness: no type ${ty}`);
}

// The float expressions of a result `r` of type `ty`, in flat order.
function parts(ty, r) {
  if (ty === 'f32') return [r];
  if (STRUCT[ty]) return STRUCT[ty][1].map((m) => `${r}.${m}`);
  if (ty === 'mat4f') return Array.from({ length: 16 }, (_, k) => `${r}.m[${k}]`);
  if (ty === 'df64') return [`${r}.x`, `${r}.y`];
  throw new Error(`harness: no result type ${ty}`);
}

function coreOf(fn) {
  return fn.core === 'df64' ? 'df64' : 'core';
}

// The call of `fn` with its parameters loaded from the case's words.
function call(fn, L, lang) {
  let o = 0;
  const args = fn.params.map((p) => {
    const e = load(p, o, L, lang);
    o += WORDS[p];
    return e;
  });
  return `${fn.name}(${args.join(', ')})`;
}

export function inWords(fn) {
  return fn.params.reduce((s, p) => s + WORDS[p], 0);
}

// ---- WebGPU ----

function wgslEntry(fn, entry) {
  const nin = inWords(fn);
  const nout = WORDS[fn.result];
  const setter = closure([fn.name], { language: 'wgsl', core: coreOf(fn) }).opaqueZeroSetter;
  const L = (k) => `bitcast<f32>(aether_in[b + ${k}u])`;
  const stores = parts(fn.result, 'r').map((e, k) => `    aether_out[ob + ${k}u] = bitcast<u32>(${e});`).join('\n');
  return `
@compute @workgroup_size(1)
fn ${entry}(@builtin(global_invocation_id) id: vec3<u32>) {
${setter ? `    ${setter}(aether_zero.x);\n` : ''}    let b = id.x * ${nin}u;
    let ob = id.x * ${nout}u;
    let r = ${call(fn, L, 'wgsl')};
${stores}
}
`;
}

const WGSL_BUFFERS = `
@group(0) @binding(0) var<storage, read> aether_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> aether_out: array<u32>;
`;

/** The WGSL module of the whole form: both cores whole, the opaque-zero uniform, an entry per function. */
export function wgslWhole(fns, wholeCore, wholeDf64) {
  return `${wholeCore}\n${wholeDf64}\n${opaqueZeroDeclaration({ group: 0, binding: OPAQUE_ZERO_BINDING })}${WGSL_BUFFERS}${fns.map((f, i) => wgslEntry(f, `e${i}`)).join('')}`;
}

/** The WGSL module of the subset form for one function. */
export function wgslSubset(fn) {
  // The uniform is declared here whether or not the subset needs it (the entry only reads it then).
  const lib = subset([fn.name], { language: 'wgsl', core: coreOf(fn), opaqueZero: false });
  return `${lib}\n${opaqueZeroDeclaration({ group: 0, binding: OPAQUE_ZERO_BINDING })}${WGSL_BUFFERS}${wgslEntry(fn, 'e0')}`;
}

export async function compileErrors(device, code, label) {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ label, code });
  const info = await module.getCompilationInfo();
  const scoped = await device.popErrorScope();
  const errors = info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}:${m.linePos}: ${m.message}`);
  if (scoped && !errors.length) errors.push(scoped.message);
  return { module, errors };
}

/** Runs entry `entry` of `module` on the cases of `fn`; the output words, case by case. */
export async function runWgsl(device, module, entry, fn) {
  const nin = inWords(fn);
  const nout = WORDS[fn.result];
  const n = fn.inputs.length;
  device.pushErrorScope('validation');
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: entry } });
  const input = device.createBuffer({ size: n * nin * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(input, 0, new Uint32Array(fn.inputs.flat()));
  const out = device.createBuffer({ size: n * nout * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: n * nout * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const zero = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM });
  const layout = pipeline.getBindGroupLayout(0);
  const entries = [{ binding: 0, resource: { buffer: input } }, { binding: 1, resource: { buffer: out } }];
  // The uniform is bound when the entry uses it (an auto layout lists only what is used).
  if (closure([fn.name], { language: 'wgsl', core: coreOf(fn) }).opaqueZeroSetter) entries.push({ binding: OPAQUE_ZERO_BINDING, resource: { buffer: zero } });
  const group = device.createBindGroup({ layout, entries });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.dispatchWorkgroups(n);
  pass.end();
  enc.copyBufferToBuffer(out, 0, read, 0, n * nout * 4);
  device.queue.submit([enc.finish()]);
  const err = await device.popErrorScope();
  if (err) throw new Error(`${fn.name} (${entry}): ${err.message}`);
  await read.mapAsync(GPUMapMode.READ);
  const words = new Uint32Array(read.getMappedRange().slice(0));
  read.unmap();
  for (const b of [input, out, read, zero]) b.destroy();
  return Array.from({ length: n }, (_, i) => Array.from(words.subarray(i * nout, (i + 1) * nout)));
}

// ---- WebGL2 ----

const GLSL_HEAD = '#version 300 es\nprecision highp float;\nprecision highp int;\n';
const GLSL_IO = `
uniform highp usampler2D aether_in;
flat out uvec4 aether_o0;
flat out uvec4 aether_o1;
flat out uvec4 aether_o2;
flat out uvec4 aether_o3;
float aether_t_l(int k) { return uintBitsToFloat(texelFetch(aether_in, ivec2(k, gl_VertexID), 0).r); }
`;

function glslBranch(fn) {
  const setter = closure([fn.name], { language: 'glsl', core: coreOf(fn) }).opaqueZeroSetter;
  const L = (k) => `aether_t_l(${k})`;
  const ty = fn.result === 'f32' ? 'float' : fn.result === 'df64' ? 'vec2' : `aether_${fn.result}`;
  const stores = parts(fn.result, 'r').map((e, k) => `        o[${k}] = floatBitsToUint(${e});`).join('\n');
  return `${setter ? `        ${setter}(aether_zero);\n` : ''}        ${ty} r = ${call(fn, L, 'glsl')};\n${stores}\n`;
}

function glslMain(fns) {
  const branches = fns.map((f, i) => `    ${i ? 'else ' : ''}if (aether_which == ${i}) {\n${glslBranch(f)}    }\n`).join('');
  return `
uniform int aether_which;
void main() {
    uint o[16];
    for (int k = 0; k < 16; k++) { o[k] = 0u; }
${branches}    aether_o0 = uvec4(o[0], o[1], o[2], o[3]);
    aether_o1 = uvec4(o[4], o[5], o[6], o[7]);
    aether_o2 = uvec4(o[8], o[9], o[10], o[11]);
    aether_o3 = uvec4(o[12], o[13], o[14], o[15]);
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
    gl_PointSize = 1.0;
}
`;
}

/** The vertex shader of the whole form: both GLSL cores whole, a branch per function. */
export function glslWhole(fns, wholeCore, wholeDf64) {
  return `${GLSL_HEAD}${wholeCore}\n${wholeDf64}\n${opaqueZeroDeclaration({ language: 'glsl' })}${GLSL_IO}${glslMain(fns)}`;
}

/** The vertex shader of the subset form for one function. */
export function glslSubset(fn) {
  const lib = subset([fn.name], { language: 'glsl', core: coreOf(fn), opaqueZero: false });
  return `${GLSL_HEAD}${lib}\n${opaqueZeroDeclaration({ language: 'glsl' })}${GLSL_IO}${glslMain([fn])}`;
}

export function glslCompileErrors(gl, type, source) {
  const s = gl.createShader(type);
  gl.shaderSource(s, source);
  gl.compileShader(s);
  const ok = gl.getShaderParameter(s, gl.COMPILE_STATUS);
  const log = gl.getShaderInfoLog(s) || '';
  return { shader: s, errors: ok ? [] : [log.trim() || 'compile failed'] };
}

const FRAGMENT = `${GLSL_HEAD}out vec4 aether_color;\nvoid main() { aether_color = vec4(0.0); }\n`;

export function glslProgram(gl, vertex) {
  const v = glslCompileErrors(gl, gl.VERTEX_SHADER, vertex);
  if (v.errors.length) throw new Error(`vertex shader: ${v.errors.join('; ')}`);
  const f = glslCompileErrors(gl, gl.FRAGMENT_SHADER, FRAGMENT);
  if (f.errors.length) throw new Error(`fragment shader: ${f.errors.join('; ')}`);
  const p = gl.createProgram();
  gl.attachShader(p, v.shader);
  gl.attachShader(p, f.shader);
  gl.transformFeedbackVaryings(p, ['aether_o0', 'aether_o1', 'aether_o2', 'aether_o3'], gl.INTERLEAVED_ATTRIBS);
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(`link: ${gl.getProgramInfoLog(p)}`);
  return p;
}

/** Runs branch `which` of program `p` on the cases of `fn` (one vertex a case); the output words. */
export function runGlsl(gl, p, which, fn) {
  const nin = inWords(fn);
  const nout = WORDS[fn.result];
  const n = fn.inputs.length;
  gl.useProgram(p);
  const tex = gl.createTexture();
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32UI, nin, n, 0, gl.RED_INTEGER, gl.UNSIGNED_INT, new Uint32Array(fn.inputs.flat()));
  gl.uniform1i(gl.getUniformLocation(p, 'aether_in'), 0);
  gl.uniform1i(gl.getUniformLocation(p, 'aether_which'), which);
  const zloc = gl.getUniformLocation(p, 'aether_zero');
  if (zloc) gl.uniform1ui(zloc, 0);
  const buf = gl.createBuffer();
  gl.bindBuffer(gl.TRANSFORM_FEEDBACK_BUFFER, buf);
  gl.bufferData(gl.TRANSFORM_FEEDBACK_BUFFER, n * 16 * 4, gl.STATIC_READ);
  const tf = gl.createTransformFeedback();
  gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, tf);
  gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, buf);
  gl.enable(gl.RASTERIZER_DISCARD);
  gl.beginTransformFeedback(gl.POINTS);
  gl.drawArrays(gl.POINTS, 0, n);
  gl.endTransformFeedback();
  gl.disable(gl.RASTERIZER_DISCARD);
  gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, null);
  gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, null);
  const words = new Uint32Array(n * 16);
  gl.bindBuffer(gl.COPY_READ_BUFFER, buf);
  gl.getBufferSubData(gl.COPY_READ_BUFFER, 0, words);
  gl.bindBuffer(gl.COPY_READ_BUFFER, null);
  gl.deleteBuffer(buf);
  gl.deleteTransformFeedback(tf);
  gl.deleteTexture(tex);
  const err = gl.getError();
  if (err) throw new Error(`${fn.name}: GL error 0x${err.toString(16)}`);
  return Array.from({ length: n }, (_, i) => Array.from(words.subarray(i * 16, i * 16 + nout)));
}

/** The GLSL core's self-test in a vertex shader (one vertex), from the subset tool; the report's words. */
export function glslSelfTest(gl, fields) {
  const lib = subset(['aether_selftest'], { language: 'glsl', opaqueZero: false });
  const stores = fields.map((f, k) => `    o[${k}] = r.${f};`).join('\n');
  const vertex = `${GLSL_HEAD}${lib}\n${opaqueZeroDeclaration({ language: 'glsl' })}
flat out uvec4 aether_o0;
flat out uvec4 aether_o1;
flat out uvec4 aether_o2;
flat out uvec4 aether_o3;
void main() {
    aether_set_opaque_zero(aether_zero);
    aether_selftest_report r = aether_selftest();
    uint o[16];
    for (int k = 0; k < 16; k++) { o[k] = 0u; }
${stores}
    aether_o0 = uvec4(o[0], o[1], o[2], o[3]);
    aether_o1 = uvec4(o[4], o[5], o[6], o[7]);
    aether_o2 = uvec4(o[8], o[9], o[10], o[11]);
    aether_o3 = uvec4(o[12], o[13], o[14], o[15]);
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
    gl_PointSize = 1.0;
}
`;
  const p = glslProgram(gl, vertex);
  // One vertex (its texture row is empty and unread); the report is the first words of 16.
  const report = { name: 'aether_selftest', params: [], result: 'mat4f', inputs: [[]] };
  return runGlsl(gl, p, 0, report)[0].slice(0, fields.length);
}
