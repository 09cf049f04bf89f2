// Helpers for WebGPU pages: the opaque-zero uniform and the WGSL self-test.
import { subset } from './subset.js';
import { selftestFields, selftestRules } from './generated/selftest.js';

/** The opaque-zero uniform's binding in the declarations this package writes (group 0). */
export const OPAQUE_ZERO_BINDING = 16;

/**
 * A 16-byte uniform buffer that stays zero (WebGPU zero-fills a new buffer):
 * the shader reads it as `vec4<u32>` and passes `.x` to aether_set_opaque_zero
 * (and aether_df64_set_opaque_zero), a zero the compiler cannot see.
 */
export function createOpaqueZero(device, { label = 'aether opaque zero' } = {}) {
  return device.createBuffer({ label, size: 16, usage: GPUBufferUsage.UNIFORM });
}

/** The bind group entry for that buffer: add it to the entries of your group's bind group. */
export function opaqueZeroEntry(buffer, binding = OPAQUE_ZERO_BINDING) {
  return { binding, resource: { buffer } };
}

/** The self-test's compute module: the subset for aether_selftest and an entry `main` writing the report. */
export function selfTestSource({ whole = false, wholeSource = null } = {}) {
  const lib = whole
    ? `${wholeSource}\n@group(0) @binding(${OPAQUE_ZERO_BINDING}) var<uniform> aether_zero: vec4<u32>;\n`
    : subset(['aether_selftest'], { opaqueZero: { group: 0, binding: OPAQUE_ZERO_BINDING, name: 'aether_zero' } });
  const stores = selftestFields.map((f, i) => `    aether_report_out[${i}] = r.${f};`).join('\n');
  return `${lib}
@group(0) @binding(0) var<storage, read_write> aether_report_out: array<u32, ${selftestFields.length}>;

@compute @workgroup_size(1)
fn main() {
    aether_set_opaque_zero(aether_zero.x);
    let r = aether_selftest();
${stores}
}
`;
}

/** The report's fields by name, and what they say in words. */
export function describeSelfTest(words) {
  const f = Object.fromEntries(selftestFields.map((name, i) => [name, words[i] >>> 0]));
  const rules = selftestRules.filter((_, k) => (f.failed_rules >>> k) & 1);
  const passed = f.failed === 0 && f.failed_rules === 0;
  const parts = [];
  parts.push(
    passed
      ? `self-test passed: ${f.witnesses} witnesses replayed, none of the exact ones failed`
      : `self-test FAILED: ${f.failed} of ${f.witnesses} witnesses broke their rule (${rules.join(', ') || 'no rule bit'}), the first is witness ${f.first_failed - 1}`,
  );
  if (f.banded_differ) parts.push(`${f.banded_differ} banded witnesses differ within their WGSL band (allowed)`);
  if (f.outside_domain_differ) parts.push(`${f.outside_domain_differ} witnesses outside the shading language's domain (NaN, infinity, subnormal) differ (allowed)`);
  parts.push(f.flushes_results ? 'this stack flushes subnormal results' : 'this stack keeps subnormal results');
  parts.push(f.flushes_operands ? 'flushes subnormal operands' : 'keeps subnormal operands');
  parts.push(f.zero_sign_ignored ? 'ignores the sign of a zero' : 'keeps the sign of a zero');
  return { passed, fields: f, failingRules: rules, text: parts.join('; ') + '.' };
}

/**
 * Runs the WGSL self-test on a GPUDevice: builds the pipeline (seconds: the
 * self-test replays every witness through the core), dispatches one
 * invocation, reads the report back. Resolves to describeSelfTest's object
 * with buildMs and runMs; rejects with the compiler's messages if the module
 * does not compile.
 */
export async function runSelfTest(device, options = {}) {
  const t0 = performance.now();
  const code = selfTestSource(options);
  const module = device.createShaderModule({ label: 'aether self-test', code });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length) throw new Error(`aether self-test: the module does not compile: ${errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ')}`);
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const t1 = performance.now();
  const bytes = selftestFields.length * 4;
  const out = device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const zero = createOpaqueZero(device);
  const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer: out } }, opaqueZeroEntry(zero)],
  });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.dispatchWorkgroups(1);
  pass.end();
  enc.copyBufferToBuffer(out, 0, read, 0, bytes);
  device.queue.submit([enc.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const words = Array.from(new Uint32Array(read.getMappedRange().slice(0)));
  read.unmap();
  for (const b of [out, read, zero]) b.destroy();
  const r = describeSelfTest(words);
  return { ...r, words, buildMs: Math.round(t1 - t0), runMs: Math.round(performance.now() - t1) };
}
