// `npm run build`: the pages' browser code (src/dashboard/browser/, TypeScript) as the files the
// service serves, in dist/pages/: one script per file of src/dashboard/browser/scripts/ (each
// with every module it imports, src/csv's reader included, as one classic script: the pages load
// them with <script src defer>), and the stylesheet. src/dashboard/page-assets.ts reads them from
// there in every way the service runs (from src/ under vitest, from dist/, from the CLI bundle,
// in the Docker image), and refuses to start without them.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const browser = 'src/dashboard/browser';
const out = `${root}dist/pages`;
const scripts = readdirSync(`${root}${browser}/scripts`)
  .filter((name) => name.endsWith('.ts'))
  .map((name) => ({ in: `${browser}/scripts/${name}`, out: name.replace(/\.ts$/, '') }));
if (scripts.length === 0) throw new Error(`scripts/bundle-pages.mjs: no page script in ${browser}/scripts`);

rmSync(out, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: [...scripts, { in: `${browser}/style.css`, out: 'style' }],
  outdir: out,
  bundle: true,
  format: 'iife',
  // A Node module (node:fs…) in a page's imports fails the build here rather than in a browser.
  platform: 'browser',
  target: 'es2020',
  tsconfig: `${browser}/tsconfig.json`,
  // Readable as served: the scripts are small, and an operator may read what their browser runs.
  minify: false,
  legalComments: 'none',
  logLevel: 'warning',
});
