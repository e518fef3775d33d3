import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { packageRoot } from '../files/package-root.js';
import { CHART_ASSET_PATHS } from './campaign-charts.js';
import { uplotFiles } from './chart-assets.js';
import { ASSET_PATHS } from './layout.js';
import { NEW_CAMPAIGN_SCRIPT_PATH } from './new-campaign-page.js';
import { RETARGET_SCRIPT_PATH } from './retarget-form.js';
import { AppError } from '../errors/app-error.js';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * Each page asset the service serves from the build (`npm run build` makes them from
 * src/dashboard/browser/ with scripts/bundle-pages.mjs): its URL, its file in dist/pages/, its type.
 */
const BUNDLED: readonly { path: string; file: string; type: string }[] = [
  { path: ASSET_PATHS.script, file: 'live.js', type: JS },
  { path: ASSET_PATHS.style, file: 'style.css', type: CSS },
  { path: CHART_ASSET_PATHS.script, file: 'charts.js', type: JS },
  { path: NEW_CAMPAIGN_SCRIPT_PATH, file: 'new-campaign.js', type: JS },
  { path: RETARGET_SCRIPT_PATH, file: 'retarget.js', type: JS },
];

/**
 * The pages' scripts or stylesheet are not built (a checkout before `npm run build`, or a dist/
 * copied without dist/pages/): the service refuses to start rather than serve pages whose
 * scripts answer 404.
 */
export class PageBundleMissingError extends AppError {
  constructor(
    readonly file: string,
    options: { cause: unknown },
  ) {
    super(
      'BUILD_MISSING',
      `the dashboard's page scripts are not built (${file} cannot be read): run \`npm run build\`, then start the service again`,
      options,
    );
  }
}

/**
 * Where the build puts the page assets: dist/pages/ of the package, found from package.json
 * above this module, which is in src/dashboard/ under vitest, in dist/src/dashboard/ once
 * compiled, and in dist/cli/ inside the CLI's bundle (its import.meta.url is the bundle's);
 * the Docker image copies dist/ whole beside its package.json.
 */
export function pageAssetsDir(): string {
  return join(packageRoot(), 'dist', 'pages');
}

function readBundle(dir: string, file: string): string {
  const path = join(dir, file);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new PageBundleMissingError(path, { cause: error });
  }
}

/**
 * The pages' scripts and stylesheet (from the build), and uPlot's files (from its package), each
 * read once when the routes are made: a missing one fails the start. Served as files (the pages'
 * Content-Security-Policy allows no inline script or style), revalidated at each load.
 */
export function registerPageAssets(app: FastifyInstance, dir = pageAssetsDir()): void {
  const uplot = uplotFiles();
  const assets = [
    ...BUNDLED.map((a) => ({ ...a, body: readBundle(dir, a.file) })),
    { path: CHART_ASSET_PATHS.uplotScript, type: JS, body: uplot.script },
    { path: CHART_ASSET_PATHS.uplotStyle, type: CSS, body: uplot.style },
  ];
  for (const { path, type, body } of assets) {
    app.get(path, async (_request, reply) =>
      reply.header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').type(type).send(body),
    );
  }
}
