import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * uPlot's browser build and stylesheet, read from the installed package (node_modules/uplot/dist)
 * once, when the routes are made (src/dashboard/page-assets.ts): the service serves them itself,
 * so the page needs no CDN and nothing is fetched while it runs.
 */
let uplot: { script: string; style: string } | undefined;

export function uplotFiles(): { script: string; style: string } {
  if (uplot === undefined) {
    // The package's main file is dist/uPlot.cjs.js; its browser build and CSS sit beside it.
    const dist = dirname(createRequire(import.meta.url).resolve('uplot'));
    uplot = { script: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'), style: readFileSync(join(dist, 'uPlot.min.css'), 'utf8') };
  }
  return uplot;
}
