// The demo: the same computation (a point of a small figure placed near 10^8
// metres, then seen from a camera beside it) in f32 with the aether WGSL core
// and in df64 with the aether WGSL df64, on the GPU, drawn side by side.
import { subset, createOpaqueZero, opaqueZeroEntry, OPAQUE_ZERO_BINDING } from '../index.js';

const N = 1500;
const CENTRE = [1e8 + 0.37, 1e8 - 0.81]; // metres (f64 on the host)
const CAMERA = [CENTRE[0] + 1.3, CENTRE[1] - 2.1];
const HALF = 24; // metres shown either side of the camera

// Splits an f64 into a df64 pair (hi, lo) as aether_reference::df64::Df64::from_f64.
function split(x) {
  const hi = Math.fround(x);
  const lo = Math.fround(x - hi);
  const s = Math.fround(hi + lo);
  return [s, Math.fround(lo - Math.fround(s - hi))];
}

const shader = () => `${subset(['aether_vec2f_add', 'aether_vec2f_sub'], { opaqueZero: false })}
${subset(['aether_vec2d_add', 'aether_vec2d_sub'], { core: 'df64', opaqueZero: { group: 0, binding: OPAQUE_ZERO_BINDING } })}
struct Params {
    centre_f32: aether_vec2f,
    camera_f32: aether_vec2f,
    centre: aether_vec2d,
    camera: aether_vec2d,
}
@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<storage, read> local: array<aether_vec2f>;
@group(0) @binding(2) var<storage, read_write> view_f32: array<aether_vec2f>;
@group(0) @binding(3) var<storage, read_write> view_df64: array<aether_vec2d>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    aether_df64_set_opaque_zero(aether_zero.x);
    let i = id.x;
    if (i >= arrayLength(&local)) { return; }
    let l = local[i];
    // f32: the world point rounds to the 8 m grid near 10^8.
    let w = aether_vec2f_add(params.centre_f32, l);
    view_f32[i] = aether_vec2f_sub(w, params.camera_f32);
    // df64: the same in pairs of f32 (about 48 bits).
    let ld = aether_vec2d(vec2<f32>(l.x, 0.0), vec2<f32>(l.y, 0.0));
    let wd = aether_vec2d_add(params.centre, ld);
    view_df64[i] = aether_vec2d_sub(wd, params.camera);
}
`;

function draw(canvas, pts, exact, title, color) {
  const g = canvas.getContext('2d');
  const W = canvas.width;
  const H = canvas.height;
  const s = Math.min(W, H) / (2 * HALF);
  const X = (x) => W / 2 + x * s;
  const Y = (y) => H / 2 - y * s;
  g.fillStyle = '#0a0d12';
  g.fillRect(0, 0, W, H);
  // The f32 grid of world coordinates near 10^8 (every 8 m), in view coordinates.
  g.strokeStyle = '#1e2633';
  g.lineWidth = 1;
  for (let k = -8; k <= 8; k++) {
    const gx = 1e8 + 8 * k - CAMERA[0];
    const gy = 1e8 + 8 * k - CAMERA[1];
    g.beginPath();
    g.moveTo(X(gx), 0);
    g.lineTo(X(gx), H);
    g.moveTo(0, Y(gy));
    g.lineTo(W, Y(gy));
    g.stroke();
  }
  // The exact curve (f64 on the host), faint.
  g.strokeStyle = '#394455';
  g.lineWidth = 6;
  g.beginPath();
  exact.forEach(([x, y], i) => (i ? g.lineTo(X(x), Y(y)) : g.moveTo(X(x), Y(y))));
  g.closePath();
  g.stroke();
  // The GPU's points.
  g.strokeStyle = color;
  g.lineWidth = 2;
  g.beginPath();
  pts.forEach(([x, y], i) => (i ? g.lineTo(X(x), Y(y)) : g.moveTo(X(x), Y(y))));
  g.closePath();
  g.stroke();
  g.fillStyle = color;
  for (const [x, y] of pts) g.fillRect(X(x) - 2, Y(y) - 2, 4, 4);
  g.fillStyle = '#e6e6e6';
  g.font = '600 16px system-ui, sans-serif';
  g.fillText(title, 12, 24);
  g.font = '13px system-ui, sans-serif';
  g.fillStyle = '#aab';
  g.fillText(`${HALF * 2} m across; grid lines 8 m apart (the f32 spacing at 10^8); faint: the exact curve`, 12, H - 12);
}

async function main() {
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter');
  const device = await adapter.requestDevice();
  // A rose curve r = 15 cos(3t) (metres), as f32 offsets.
  const local = new Float32Array(2 * N);
  const exact = [];
  for (let i = 0; i < N; i++) {
    const t = (2 * Math.PI * i) / N;
    const r = 15 * Math.cos(3 * t) + 3 * Math.sin(7 * t);
    local[2 * i] = r * Math.cos(t);
    local[2 * i + 1] = r * Math.sin(t);
    exact.push([CENTRE[0] - CAMERA[0] + local[2 * i], CENTRE[1] - CAMERA[1] + local[2 * i + 1]]);
  }
  const params = new Float32Array([
    Math.fround(CENTRE[0]), Math.fround(CENTRE[1]), Math.fround(CAMERA[0]), Math.fround(CAMERA[1]),
    ...split(CENTRE[0]), ...split(CENTRE[1]), ...split(CAMERA[0]), ...split(CAMERA[1]),
  ]);
  const module = device.createShaderModule({ code: shader() });
  const info = await module.getCompilationInfo();
  const errs = info.messages.filter((m) => m.type === 'error');
  if (errs.length) throw new Error(errs.map((m) => `${m.lineNum}: ${m.message}`).join('; '));
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const buf = (data, usage) => {
    const b = device.createBuffer({ size: data.byteLength, usage: usage | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(b, 0, data);
    return b;
  };
  const pBuf = buf(params, GPUBufferUsage.STORAGE);
  const lBuf = buf(local, GPUBufferUsage.STORAGE);
  const o32 = device.createBuffer({ size: 8 * N, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const o64 = device.createBuffer({ size: 16 * N, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const r32 = device.createBuffer({ size: 8 * N, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const r64 = device.createBuffer({ size: 16 * N, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const zero = createOpaqueZero(device);
  const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer: pBuf } },
      { binding: 1, resource: { buffer: lBuf } },
      { binding: 2, resource: { buffer: o32 } },
      { binding: 3, resource: { buffer: o64 } },
      opaqueZeroEntry(zero),
    ],
  });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.dispatchWorkgroups(Math.ceil(N / 64));
  pass.end();
  enc.copyBufferToBuffer(o32, 0, r32, 0, 8 * N);
  enc.copyBufferToBuffer(o64, 0, r64, 0, 16 * N);
  device.queue.submit([enc.finish()]);
  await Promise.all([r32.mapAsync(GPUMapMode.READ), r64.mapAsync(GPUMapMode.READ)]);
  const v32 = new Float32Array(r32.getMappedRange().slice(0));
  const v64 = new Float32Array(r64.getMappedRange().slice(0));
  const p32 = [];
  const p64 = [];
  let e32 = 0;
  let e64 = 0;
  for (let i = 0; i < N; i++) {
    p32.push([v32[2 * i], v32[2 * i + 1]]);
    p64.push([v64[4 * i] + v64[4 * i + 1], v64[4 * i + 2] + v64[4 * i + 3]]);
    e32 = Math.max(e32, Math.hypot(p32[i][0] - exact[i][0], p32[i][1] - exact[i][1]));
    e64 = Math.max(e64, Math.hypot(p64[i][0] - exact[i][0], p64[i][1] - exact[i][1]));
  }
  const distinct = new Set(p32.map(([x, y]) => `${x},${y}`)).size;
  draw(document.getElementById('f32'), p32, exact, 'f32: aether_vec2f_add, aether_vec2f_sub', '#ff8a5c');
  draw(document.getElementById('df64'), p64, exact, 'df64: aether_vec2d_add, aether_vec2d_sub', '#6fd3a0');
  document.getElementById('c32').textContent = `f32: ${N} points land on ${distinct} grid points; largest error ${e32.toFixed(2)} m`;
  document.getElementById('c64').textContent = `df64: largest error ${e64.toExponential(1)} m (drawn over the exact curve)`;
  const ai = adapter.info || {};
  document.getElementById('sub').textContent =
    `WebGPU on ${ai.vendor || '?'} ${ai.architecture || ''}; the shader is the package's subset of both cores plus 20 lines.`;
  return { ok: true, text: `f32: ${distinct} distinct points of ${N}, largest error ${e32.toFixed(2)} m; df64: largest error ${e64.toExponential(2)} m`, e32, e64, distinct };
}

window.aetherDemo = main().catch((e) => ({ ok: false, error: `${e && e.stack ? e.stack : e}` }));
