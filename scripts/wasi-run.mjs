// Runs a WASI (preview1) module under Node's built-in WASI (node:wasi), with its arguments and
// no file system: `node --no-warnings scripts/wasi-run.mjs prog.wasm ARGS...`. Exits with the
// module's exit status. scripts/compat-matrix.sh runs the wasm32 corpus runner with it.
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import { argv, exit } from 'node:process';

const wasi = new WASI({ version: 'preview1', args: argv.slice(2), env: {}, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(argv[2]));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance));
