import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageBundleMissingError, pageAssetsDir, registerPageAssets } from '../../src/dashboard/page-assets.js';

/** The files scripts/bundle-pages.mjs writes, one per page script and the stylesheet. */
const BUILT = ['live.js', 'style.css', 'charts.js', 'new-campaign.js', 'retarget.js'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'page-assets-'));
  for (const file of BUILT) await writeFile(join(dir, file), `/* ${file} */`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the page assets', () => {
  it('are found in dist/pages of the package, wherever the service runs from', () => {
    expect(pageAssetsDir()).toBe(join(import.meta.dirname, '..', '..', 'dist', 'pages'));
  });

  it('serve each built file at its URL, and uPlot from its package, as files revalidated at each load', async () => {
    const app = Fastify();
    registerPageAssets(app, dir);
    const served: Record<string, string> = {
      '/dashboard/live.js': 'live.js',
      '/dashboard/style.css': 'style.css',
      '/dashboard/charts.js': 'charts.js',
      '/dashboard/new-campaign.js': 'new-campaign.js',
      '/dashboard/retarget.js': 'retarget.js',
    };
    for (const [url, file] of Object.entries(served)) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.body).toBe(`/* ${file} */`);
      expect(answer.headers['content-type']).toBe(file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await app.inject({ url: '/dashboard/uplot.min.js' })).body).toContain('uPlot');
    await app.close();
  });

  it('refuse to start without the build, naming the file and `npm run build` (BUILD_MISSING)', async () => {
    await rm(join(dir, 'retarget.js'));
    let caught: unknown;
    try {
      registerPageAssets(Fastify(), dir);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PageBundleMissingError);
    expect(caught).toMatchObject({ code: 'BUILD_MISSING', file: join(dir, 'retarget.js') });
    expect((caught as Error).message).toContain('run `npm run build`');
  });
});
