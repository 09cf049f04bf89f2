// The aether runner's WebGL2 stack: runs the draws of a GLSL ES 3.00 check
// module in headless Chromium's WebGL2 (ANGLE on SwiftShader), serving the
// page (index.html) and the words to it over HTTP on 127.0.0.1.
//
//   node run.mjs --probe RESULT.json
//   node run.mjs JOB.json RESULT.json
//
// JOB.json: {programs: [{entry, vertex}], fragment, varyings, tex_width,
// part_words, bound_names: {block, block_binding, uniform, attributes, words},
// inputs, outputs, draws: [{program, tex_byte, rows, cases, params, part,
// keep, out_byte, bound}]}. `bound` is the draw's bound words (16 u32, or
// []), which the page binds to what the program has active of the bindings
// that `bound_names` names (runner/src/glsl_draw.rs's bound words). `inputs`
// names a file of little-endian u32 words: each draw's texture (rows *
// tex_width words) at byte tex_byte.
// `outputs` names the file this writes: for each draw, the first `keep` of
// the part_words words each case returns, cases * keep words at byte
// out_byte. The plan (chunks, parts, textures) is the Rust side's
// (runner/src/webgl.rs, after runner/src/glsl_draw.rs); the page only draws.
// RESULT.json gets {adapter: {...}, timings: {...}} on success, {adapter?,
// error} on failure (exit status 2); `adapter` holds the context's strings and
// limits, `timings` the milliseconds to the page's first request and to its
// context, of each program's compile and link, and of each draw.
//
// The page's requests, all under /TOKEN/: GET '' (the page), GET job, GET
// input?draw=I (draw I's texture words), POST info (the context's strings and
// limits, as soon as it has them), POST output?draw=I&ms=T (draw I's kept
// words), POST log (a line for AETHER_WEBGL_VERBOSE), POST done ({programs_ms}
// or {error}).
//
// Environment: AETHER_CHROMIUM (default /usr/bin/chromium),
// AETHER_WEBGL_TIMEOUT (seconds for the whole run, default 1200),
// AETHER_WEBGL_VERBOSE=1 (Chromium's log and the page's progress on stderr).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BASE_FLAGS } from '../../web/test/cdp.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const probe = args[0] === '--probe';
const resultPath = args[1];
const jobPath = probe ? null : args[0];
if (!resultPath) {
  console.error('usage: node run.mjs --probe RESULT.json | node run.mjs JOB.json RESULT.json');
  process.exit(64);
}
const chromiumPath = process.env.AETHER_CHROMIUM || '/usr/bin/chromium';
const timeoutS = Number(process.env.AETHER_WEBGL_TIMEOUT || 1200);
const verbose = process.env.AETHER_WEBGL_VERBOSE === '1';
// The page must ask for the job within this many seconds of Chromium's start.
const startTimeoutS = 120;

const t0 = performance.now();
let adapterInfo = null;
let chromium = null;
let chromiumExited = false;
let server = null;
let profile = null;
let logTail = '';
let finished = false;

// Kills Chromium's process group (it was started as a group leader) and
// removes its profile; safe to call more than once, and synchronous, so it
// runs from the 'exit' handler too.
function cleanup() {
  if (chromium && !chromiumExited) {
    try {
      process.kill(-chromium.pid, 'SIGKILL');
    } catch {
      try {
        chromium.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  if (server) {
    server.closeAllConnections?.();
    server.close();
    server = null;
  }
}

function removeProfile() {
  if (profile) {
    try {
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch {
      // the Rust side removes its work directory (TMPDIR) as well
    }
    profile = null;
  }
}

process.on('exit', () => {
  cleanup();
  removeProfile();
});

// Waits (a little) for Chromium to be gone, so that its profile can go.
async function reap() {
  cleanup();
  if (chromium && !chromiumExited) {
    await new Promise((resolve) => {
      const t = setTimeout(resolve, 3000);
      chromium.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    });
  }
  removeProfile();
}

async function finish(result, status) {
  if (finished) return;
  finished = true;
  const t = performance.now();
  await reap();
  if (verbose) console.error(`webgl: Chromium gone in ${Math.round(performance.now() - t)} ms, ${Math.round(performance.now() - t0)} ms in all`);
  fs.writeFileSync(resultPath, JSON.stringify(result));
  if (result.error) console.error(`webgl: ${result.error}`);
  process.exit(status);
}

// Chromium's log less its complaints about D-Bus (there is none here).
function chromiumLog() {
  const lines = logTail.split('\n').filter((l) => l.trim() && !/dbus|D-Bus/.test(l));
  return lines.length ? `\nChromium's log ends:\n${lines.slice(-20).join('\n')}` : '';
}

// A failure of Chromium itself: the message and the end of Chromium's log.
function fail(message) {
  return finish({ adapter: adapterInfo, error: `${message}${chromiumLog()}` }, 2);
}

// A failure the page or the run reports (its message says it all).
function failPlain(message) {
  return finish({ adapter: adapterInfo, error: message }, 2);
}

process.on('uncaughtException', (e) => fail(`uncaught: ${e && e.stack ? e.stack : e}`));
process.on('unhandledRejection', (e) => fail(`unhandled rejection: ${e && e.stack ? e.stack : e}`));
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => fail(`killed by ${sig}`));
}

const job = probe ? null : JSON.parse(fs.readFileSync(jobPath, 'utf8'));
const inputFd = probe ? null : fs.openSync(job.inputs, 'r');
const outputFd = probe ? null : fs.openSync(job.outputs, 'w');
const page = fs.readFileSync(path.join(here, 'index.html'));
const token = crypto.randomBytes(16).toString('hex');
// Milliseconds: from Chromium's start to the page's first request and to its
// WebGL2 context; each program's compile and link; each draw with its read-back.
const timings = { chromium_start_ms: null, context_ms: null, programs_ms: {}, draws: [] };

function send(res, code, type, body) {
  res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

async function handle(req, res) {
  const url = new URL(req.url, 'http://127.0.0.1');
  const prefix = `/${token}/`;
  if (!url.pathname.startsWith(prefix)) {
    send(res, 404, 'text/plain', 'no');
    return;
  }
  const route = url.pathname.slice(prefix.length);
  if (req.method === 'GET' && route === '') {
    send(res, 200, 'text/html; charset=utf-8', page);
  } else if (req.method === 'GET' && route === 'job') {
    if (timings.chromium_start_ms === null) timings.chromium_start_ms = Math.round(performance.now() - t0);
    const view = probe
      ? { probe: true }
      : {
          probe: false,
          programs: job.programs,
          fragment: job.fragment,
          varyings: job.varyings,
          tex_width: job.tex_width,
          part_words: job.part_words,
          bound_names: job.bound_names,
          draws: job.draws,
        };
    send(res, 200, 'application/json', JSON.stringify(view));
  } else if (req.method === 'GET' && route === 'input') {
    const d = job.draws[Number(url.searchParams.get('draw'))];
    const bytes = d.rows * job.tex_width * 4;
    const buf = Buffer.alloc(bytes);
    const got = fs.readSync(inputFd, buf, 0, bytes, d.tex_byte);
    if (got !== bytes) throw new Error(`${job.inputs}: ${got} bytes at ${d.tex_byte}, not ${bytes}`);
    send(res, 200, 'application/octet-stream', buf);
  } else if (req.method === 'POST' && route === 'output') {
    const i = Number(url.searchParams.get('draw'));
    const d = job.draws[i];
    const body = await readBody(req);
    if (body.length !== d.cases * d.keep * 4) {
      send(res, 400, 'text/plain', 'length');
      await failPlain(`draw ${i}: ${body.length} result bytes, not ${d.cases * d.keep * 4}`);
      return;
    }
    fs.writeSync(outputFd, body, 0, body.length, d.out_byte);
    const ms = Number(url.searchParams.get('ms'));
    timings.draws.push(ms);
    send(res, 200, 'text/plain', 'ok');
  } else if (req.method === 'POST' && route === 'info') {
    adapterInfo = JSON.parse((await readBody(req)).toString());
    timings.context_ms = Math.round(performance.now() - t0);
    send(res, 200, 'text/plain', 'ok');
  } else if (req.method === 'POST' && route === 'log') {
    const body = await readBody(req);
    if (verbose) console.error(`webgl page: ${body.toString()}`);
    send(res, 200, 'text/plain', 'ok');
  } else if (req.method === 'POST' && route === 'done') {
    const r = JSON.parse((await readBody(req)).toString());
    send(res, 200, 'text/plain', 'ok');
    if (r.info) adapterInfo = r.info;
    if (r.programs_ms) timings.programs_ms = r.programs_ms;
    if (r.error) {
      await failPlain(r.error);
    } else if (probe) {
      await finish({ adapter: adapterInfo, timings }, 0);
    } else {
      fs.closeSync(outputFd);
      await finish({ adapter: adapterInfo, timings }, 0);
    }
  } else {
    send(res, 404, 'text/plain', 'no');
  }
}

server = http.createServer((req, res) => {
  handle(req, res).catch((e) => {
    try {
      send(res, 500, 'text/plain', String(e));
    } catch {
      // the response was sent
    }
    fail(`server: ${e && e.stack ? e.stack : e}`);
  });
});
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(0, '127.0.0.1', resolve);
});
const port = server.address().port;

profile = fs.mkdtempSync(path.join(os.tmpdir(), 'aether-webgl-profile-'));
// The web package's browser test launches Chromium with the same base flags (web/test/cdp.mjs);
// WebGL2 here is ANGLE over SwiftShader, and Chromium's log goes to stderr for the failure report.
const flags = [
  ...BASE_FLAGS,
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
  '--disable-gpu-watchdog',
  '--enable-logging=stderr',
  `--user-data-dir=${profile}`,
  `http://127.0.0.1:${port}/${token}/`,
];
chromium = spawn(chromiumPath, flags, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
chromium.on('error', (e) => fail(`${chromiumPath}: ${e.message}`));
const onLog = (chunk) => {
  const text = chunk.toString();
  if (verbose) process.stderr.write(text);
  logTail = (logTail + text).slice(-8000);
};
chromium.stdout.on('data', onLog);
chromium.stderr.on('data', onLog);
chromium.on('exit', (code, signal) => {
  chromiumExited = true;
  if (!finished) fail(`Chromium (${chromiumPath}) exited (${signal ?? `status ${code}`}) before the page was done`);
});

setTimeout(() => {
  if (timings.chromium_start_ms === null) fail(`the page did not ask for its job within ${startTimeoutS} s of Chromium's start`);
}, startTimeoutS * 1000).unref();
setTimeout(() => {
  failPlain(`timed out after ${timeoutS} s (AETHER_WEBGL_TIMEOUT)`);
}, timeoutS * 1000).unref();
