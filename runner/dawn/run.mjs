// The aether runner's Dawn stack: Dawn for Node (the `webgpu` package) on
// whatever Vulkan driver VK_ICD_FILENAMES names (SwiftShader here).
//
//   node run.mjs --probe RESULT.json
//   node run.mjs JOB.json RESULT.json
//
// JOB.json: {source, inputs, outputs, jobs: [{entry, n_in, n_out,
// workgroup_size, cases_per_workgroup, count, in_offset, out_offset}]};
// `inputs` names a file of little-endian u32 words (every job's inputs one
// after another, job i's at word in_offset), `outputs` the file this writes
// the same way (job i's count * n_out words at out_offset). RESULT.json gets
// {adapter: {...}} on success, {adapter?, error} on failure (exit status 2).
// The bindings and the dispatch plan are the check module's convention
// (generator/src/targets/wgsl.rs), the same as the Rust side's (exec.rs).
import fs from 'node:fs';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);

const MAX_WORKGROUPS = 65535;
const ONE_BITS = 0x3f800000;

const args = process.argv.slice(2);
const probe = args[0] === '--probe';
const resultPath = args[1];
const jobPath = probe ? null : args[0];
if (!resultPath) {
  console.error('usage: node run.mjs --probe RESULT.json | node run.mjs JOB.json RESULT.json');
  process.exit(64);
}

let adapterInfo = null;
function fail(message) {
  fs.writeFileSync(resultPath, JSON.stringify({ adapter: adapterInfo, error: message }));
  console.error(`dawn: ${message}`);
  process.exit(2);
}

process.on('uncaughtException', (e) => fail(`uncaught: ${e && e.stack ? e.stack : e}`));
process.on('unhandledRejection', (e) => fail(`unhandled rejection: ${e && e.stack ? e.stack : e}`));

const gpu = create([]);
const adapter = await gpu.requestAdapter();
if (!adapter) {
  fail(`requestAdapter gave no adapter (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'})`);
}
const i = adapter.info;
adapterInfo = { vendor: i.vendor, architecture: i.architecture, device: i.device, description: i.description };
if (probe) {
  fs.writeFileSync(resultPath, JSON.stringify({ adapter: adapterInfo }));
  process.exit(0);
}

const job = JSON.parse(fs.readFileSync(jobPath, 'utf8'));
const raw = fs.readFileSync(job.inputs);
// A copy, so the words are 4-byte aligned whatever the Buffer's offset.
const inputs = new Uint32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
const totalOut = job.jobs.reduce((n, j) => Math.max(n, j.out_offset + j.count * j.n_out), 0);
const outputs = new Uint32Array(totalOut);

const device = await adapter.requestDevice({
  requiredLimits: {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  },
});
let lost = null;
device.lost.then((l) => { lost = `${l.reason}: ${l.message}`; });
device.addEventListener('uncapturederror', (e) => fail(`uncaptured error: ${e.error.message}`));

device.pushErrorScope('validation');
const module = device.createShaderModule({ code: job.source });
const compiled = await module.getCompilationInfo();
const errors = compiled.messages.filter((m) => m.type === 'error');
const scoped = await device.popErrorScope();
if (errors.length > 0 || scoped) {
  const lines = errors.map((m) => `  ${m.lineNum}:${m.linePos}: ${m.message}`);
  fail(`the shader module does not compile:\n${lines.join('\n')}${scoped ? `\n  ${scoped.message}` : ''}`);
}

const buffer = (binding, type) => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
const layout = device.createBindGroupLayout({
  entries: [buffer(0, 'read-only-storage'), buffer(1, 'storage'), buffer(2, 'uniform')],
});
const pipelineLayout = device.createPipelineLayout({ bindGroupLayouts: [layout] });

for (const j of job.jobs) {
  const nOut = j.count * j.n_out;
  if (j.count === 0 || nOut === 0) continue;
  device.pushErrorScope('validation');
  let pipeline;
  try {
    pipeline = await device.createComputePipelineAsync({ layout: pipelineLayout, compute: { module, entryPoint: j.entry } });
  } catch (e) {
    fail(`entry point ${j.entry}: ${e.message}`);
  }
  const bytes = (words) => Math.max(words, 1) * 4;
  const input = device.createBuffer({ size: bytes(j.count * j.n_in), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  if (j.count * j.n_in > 0) {
    device.queue.writeBuffer(input, 0, inputs, j.in_offset, j.count * j.n_in);
  }
  const output = device.createBuffer({ size: bytes(nOut), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const readback = device.createBuffer({ size: bytes(nOut), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  const perGroup = j.cases_per_workgroup;
  if (perGroup !== 1 && perGroup !== j.workgroup_size) {
    fail(`entry ${j.entry}: cases_per_workgroup ${perGroup} is neither 1 nor the workgroup size ${j.workgroup_size}`);
  }
  const perDispatch = perGroup * MAX_WORKGROUPS;
  for (let first = 0; first < j.count; first += perDispatch) {
    const cases = Math.min(perDispatch, j.count - first);
    const params = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(params, 0, new Uint32Array([j.count, 0, ONE_BITS, first]));
    const group = device.createBindGroup({
      layout,
      entries: [
        { binding: 0, resource: { buffer: input } },
        { binding: 1, resource: { buffer: output } },
        { binding: 2, resource: { buffer: params } },
      ],
    });
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(Math.ceil(cases / perGroup));
    pass.end();
  }
  encoder.copyBufferToBuffer(output, 0, readback, 0, bytes(nOut));
  device.queue.submit([encoder.finish()]);
  const err = await device.popErrorScope();
  if (err) fail(`entry ${j.entry}: ${err.message}`);
  await readback.mapAsync(GPUMapMode.READ);
  if (lost) fail(`entry ${j.entry}: device lost: ${lost}`);
  outputs.set(new Uint32Array(readback.getMappedRange(), 0, nOut), j.out_offset);
  readback.unmap();
  input.destroy();
  output.destroy();
  readback.destroy();
}

fs.writeFileSync(job.outputs, Buffer.from(outputs.buffer));
fs.writeFileSync(resultPath, JSON.stringify({ adapter: adapterInfo }));
process.exit(0);
