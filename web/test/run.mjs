// Serves the web package on 127.0.0.1, loads the browser test (test.html) and
// the demo (demo.html) in headless Chromium over the DevTools protocol
// (cdp.mjs), prints the test's lines, writes the demo's screenshot.
//
//   node web/test/run.mjs --cases CASES.json [--screenshot docs/web-demo.png] [--result RESULT.json]
//
// Exit status 0 when the test passed, 1 when it failed, 2 when it could not run.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { launch } from './cdp.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const webDir = path.resolve(here, '..');
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : null;
};
const casesPath = opt('--cases');
const shotPath = opt('--screenshot');
const resultPath = opt('--result');
const timeoutS = Number(process.env.AETHER_WEB_TIMEOUT || 170);
if (!casesPath) {
  console.error('usage: node web/test/run.mjs --cases CASES.json [--screenshot PNG] [--result JSON]');
  process.exit(64);
}

// WebGPU on SwiftShader (Vulkan) and WebGL2 on ANGLE over SwiftShader. With Debian's Chromium 156
// (headless=new, no GPU) --enable-unsafe-webgpu is the flag WebGPU needs (without it
// requestAdapter() gives null); --use-webgpu-adapter=swiftshader pins the adapter where a GPU
// exists, and --enable-features=Vulkan is harmless here. WebGPU needs a secure context: the page
// is on http://127.0.0.1 (about:blank has no navigator.gpu).
export const FLAGS = [
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-webgpu-adapter=swiftshader',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
  '--disable-gpu-watchdog',
];

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.json': 'application/json' };
const token = crypto.randomBytes(12).toString('hex');
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const prefix = `/${token}/`;
  let file = null;
  if (url.pathname === `${prefix}cases.json`) file = path.resolve(casesPath);
  else if (url.pathname.startsWith(`${prefix}web/`)) {
    const p = path.resolve(webDir, decodeURIComponent(url.pathname.slice(prefix.length + 4)));
    if (p.startsWith(webDir + path.sep)) file = p;
  }
  if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('no');
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(0, '127.0.0.1', resolve);
});
const base = `http://127.0.0.1:${server.address().port}/${token}/web`;

// An expression that waits for the module script to set window[name] (a promise) and awaits it.
const awaitGlobal = (name) =>
  `(async () => { for (let i = 0; i < 600 && window.${name} === undefined; i++) await new Promise((r) => setTimeout(r, 50)); return await window.${name}; })()`;

const t0 = performance.now();
let browser = null;
const killer = setTimeout(async () => {
  console.error(`web test: timed out after ${timeoutS} s (AETHER_WEB_TIMEOUT)`);
  if (browser) await browser.close();
  process.exit(2);
}, timeoutS * 1000);

let status = 2;
try {
  browser = await launch({ flags: FLAGS, log: process.env.AETHER_WEB_VERBOSE === '1' ? (s) => process.stderr.write(s) : null });
  console.log(`web test: Chromium up in ${Math.round(performance.now() - t0)} ms; flags ${FLAGS.join(' ')}`);
  const page = await browser.open(`${base}/test/test.html`);
  const r = await page.evaluate(awaitGlobal('aetherTest'), timeoutS);
  if (!r) throw new Error(`the page gave no result; its console:\n${page.consoleLines.join('\n')}`);
  for (const l of r.lines || []) console.log(l);
  if (resultPath) fs.writeFileSync(resultPath, JSON.stringify(r, null, 1));
  status = r.ok ? 0 : 1;
  if (!r.ok) console.log(`web test FAILED:\n${r.failures.join('\n')}`);
  if (shotPath) {
    const demo = await browser.open(`${base}/test/demo.html`, { width: 1200, height: 660 });
    const d = await demo.evaluate(awaitGlobal('aetherDemo'), 120);
    if (!d || !d.ok) throw new Error(`the demo failed: ${d ? d.error : 'no result'}; its console:\n${demo.consoleLines.join('\n')}`);
    console.log(`demo: ${d.text}`);
    fs.writeFileSync(shotPath, await demo.screenshot());
    console.log(`demo screenshot: ${shotPath}`);
  }
} catch (e) {
  console.error(`web test: ${e && e.stack ? e.stack : e}`);
  if (browser) console.error(browser.tail());
  status = 2;
} finally {
  clearTimeout(killer);
  if (browser) await browser.close();
  server.close();
}
console.log(`web test: ${Math.round(performance.now() - t0)} ms in the browser`);
process.exit(status);
