// `npm run build`, after tsc: the CLI as one CommonJS file, dist/cli/campaign.cjs, that
// bin/campaign.js runs with V8's compile cache (docs/performance.md, "Start-up against a bare
// `node`"). One file instead of some 300 spares resolving, reading and compiling each; CommonJS
// because Node 20 keeps no compile cache for ES modules, and a vm.Script takes one.
//
// Bundled: our code and the packages every command loads at start-up (commander, zod,
// ioredis). Every other package stays a require of node_modules: some read files beside
// themselves (BullMQ its Lua, bull-board its pages), and a command that does not use one
// must not pay for it. Modules a command imports dynamically are evaluated only when it does.
import { build } from 'esbuild';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { helpTable, withCliProgram } from './help-texts.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = `${root}dist/cli`;
const BUNDLED = new Set(['commander', 'zod', 'ioredis']);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageOf = (path) =>
  path
    .split('/')
    .slice(0, path.startsWith('@') ? 2 : 1)
    .join('/');

const startUpPackagesOnly = {
  name: 'start-up-packages-only',
  setup(bundle) {
    bundle.onResolve({ filter: /^[^./]/ }, ({ path, importer }) => {
      if (path.startsWith('node:')) return { external: true };
      // Inside a bundled package, its own dependencies come with it.
      if (importer.includes('/node_modules/')) return undefined;
      return BUNDLED.has(packageOf(path)) ? undefined : { external: true };
    });
  },
};

/** How the CLI is bundled; the help texts are taken from its program bundled alike. */
const options = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  plugins: [startUpPackagesOnly],
  // Files found beside a module (the Lua scripts, package.json) are found beside the bundle.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  minify: true,
  keepNames: true,
  // A crash prints its source line: keep that short, not a whole minified file.
  lineLimit: 200,
  sourcemap: 'linked',
  logLevel: 'warning',
};

rmSync(out, { recursive: true, force: true });
await build({ ...options, entryPoints: ['src/cli/main.ts'], outfile: `${out}/campaign.cjs` });
// The Lua scripts, where lua-scripts.ts and the pacer look for them: ./lua/ beside the code.
mkdirSync(`${out}/lua`, { recursive: true });
cpSync(`${root}src/redis/lua`, `${out}/lua`, { recursive: true, filter: (path) => !path.endsWith('.md') });
await withCliProgram(options, out, async ({ COMMAND_NAMES, cliProgram }) => {
  // The command names, for bin/campaign.js to name each command's compile cache (any other word
  // shares the cache of `--help`, which loads every definition too).
  writeFileSync(`${out}/commands.json`, `${JSON.stringify(COMMAND_NAMES)}\n`);
  // What `--help` and `<command> --help` print, for bin/campaign.js to print without the bundle.
  writeFileSync(`${out}/help.json`, `${JSON.stringify(await helpTable(cliProgram))}\n`);
});
