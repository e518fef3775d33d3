// `npm run build`, after tsc: the files the compiled code reads at run time beside itself
// (the ledger's Lua scripts, found relative to src/redis/lua-scripts.ts) go to the same place
// under dist/, so dist/ runs on its own.
import { cpSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const assets = ['src/redis/lua'];
for (const dir of assets) {
  mkdirSync(`${root}dist/${dir}`, { recursive: true });
  cpSync(`${root}${dir}`, `${root}dist/${dir}`, { recursive: true, filter: (path) => !path.endsWith('.md') });
}
