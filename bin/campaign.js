#!/usr/bin/env node
// The `campaign` command: the compiled CLI (`npm run build`, run by `npm install` through
// `prepare`). Compiled, it starts without a TypeScript loader (docs/performance.md, "Start-up
// and memory of the CLI"). A checkout whose build is missing says how to make it.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('campaign: BUILD_MISSING: dist/ is not built; run `npm run build` (npm install runs it) and try again');
  process.exit(1);
}
await import(cli.href);
