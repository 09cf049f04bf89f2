// A headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: Chromium reads NUL-terminated JSON commands on its
// fd 3 and writes replies and events on its fd 4). No npm dependency.
//
//   const browser = await launch({ flags, log });
//   const page = await browser.open(url);          // a new tab, attached
//   const value = await page.evaluate('expr', 60); // awaits a promise, by value
//   const png = await page.screenshot();           // a Buffer
//   await browser.close();
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';

export const BASE_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-extensions',
  '--disable-default-apps',
  '--disable-breakpad',
  '--disable-dev-shm-usage',
  '--no-proxy-server',
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

export async function launch({ executable = process.env.AETHER_CHROMIUM || '/usr/bin/chromium', flags = [], log = null } = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'aether-web-profile-'));
  const args = [...BASE_FLAGS, ...flags, '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'];
  const proc = spawn(executable, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] });
  let exited = false;
  let logTail = '';
  const onLog = (c) => {
    const t = c.toString();
    logTail = (logTail + t).slice(-8000);
    if (log) log(t);
  };
  proc.stdout.on('data', onLog);
  proc.stderr.on('data', onLog);
  const toChrome = proc.stdio[3];
  const fromChrome = proc.stdio[4];
  let nextId = 1;
  const pending = new Map();
  const listeners = [];
  let buf = Buffer.alloc(0);
  fromChrome.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    let i;
    while ((i = buf.indexOf(0)) >= 0) {
      const msg = JSON.parse(buf.subarray(0, i).toString('utf8'));
      buf = buf.subarray(i + 1);
      if (msg.id !== undefined && pending.has(msg.id)) {
        const { resolve, reject, method } = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg.result);
      } else {
        for (const l of listeners) l(msg);
      }
    }
  });
  const gone = new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      exited = true;
      for (const { reject, method } of pending.values()) {
        reject(new Error(`${method}: Chromium exited (${signal ?? `status ${code}`})\n${tail()}`));
      }
      pending.clear();
      resolve();
    });
  });
  function tail() {
    return logTail
      .split('\n')
      .filter((l) => l.trim() && !/dbus|D-Bus/.test(l))
      .slice(-20)
      .join('\n');
  }
  function send(method, params = {}, sessionId = undefined) {
    if (exited) return Promise.reject(new Error(`${method}: Chromium is not running\n${tail()}`));
    const id = nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, method });
      toChrome.write(JSON.stringify(msg) + '\0');
    });
  }
  await send('Browser.getVersion');

  async function open(url, { width = 1280, height = 720 } = {}) {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    const consoleLines = [];
    listeners.push((m) => {
      if (m.sessionId !== sessionId) return;
      if (m.method === 'Runtime.consoleAPICalled') {
        consoleLines.push(m.params.args.map((a) => a.value ?? a.description ?? '').join(' '));
      } else if (m.method === 'Runtime.exceptionThrown') {
        const d = m.params.exceptionDetails;
        consoleLines.push(`exception: ${d.exception?.description ?? d.text}`);
      }
    });
    await send('Runtime.enable', {}, sessionId);
    await send('Page.enable', {}, sessionId);
    await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, sessionId);
    const loaded = new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`${url}: not loaded in 60 s\n${tail()}`)), 60000);
      listeners.push((m) => {
        if (m.sessionId === sessionId && m.method === 'Page.loadEventFired') {
          clearTimeout(t);
          resolve();
        }
      });
    });
    const nav = await send('Page.navigate', { url }, sessionId);
    if (nav.errorText) throw new Error(`${url}: ${nav.errorText}`);
    await loaded;
    return {
      consoleLines,
      async evaluate(expression, timeoutS = 120) {
        let timer;
        const timeout = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${expression}: no answer in ${timeoutS} s; the page's console:\n${consoleLines.slice(-20).join('\n')}`)), timeoutS * 1000);
        });
        try {
          const r = await Promise.race([
            send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId),
            timeout,
          ]);
          if (r.exceptionDetails) {
            throw new Error(`${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
          }
          return r.result.value;
        } finally {
          clearTimeout(timer);
        }
      },
      async screenshot() {
        const r = await send('Page.captureScreenshot', { format: 'png' }, sessionId);
        return Buffer.from(r.data, 'base64');
      },
    };
  }

  async function close() {
    if (!exited) {
      try {
        await Promise.race([send('Browser.close'), new Promise((r) => setTimeout(r, 3000))]);
      } catch {
        // gone already
      }
    }
    if (!exited) {
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
  process.on('exit', () => {
    if (!exited) {
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  return { send, open, close, tail };
}
