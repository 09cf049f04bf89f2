// index.d.ts declares exactly the values index.js exports (names; tsc checks the types
// where TypeScript is installed, which scripts/web.sh does not require).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const js = Object.keys(await import(path.join(web, 'index.js'))).sort();
const dts = [...fs.readFileSync(path.join(web, 'index.d.ts'), 'utf8').matchAll(/^export (?:const|function) (\w+)/gm)].map((m) => m[1]);
const declared = [...new Set(dts)].sort();
const missing = js.filter((n) => !declared.includes(n));
const extra = declared.filter((n) => !js.includes(n));
if (missing.length || extra.length) {
  console.error(`web/index.d.ts: not declared: ${missing.join(', ') || 'none'}; declared but not exported: ${extra.join(', ') || 'none'}`);
  process.exit(1);
}
console.log(`web/index.d.ts declares the ${js.length} exports of web/index.js`);
