/**
 * /dashboard/charts.js, a campaign page's charts (src/dashboard/campaign-charts.ts), drawn from
 * the JSON in `data-charts` and again from each live update's `charts` (the live script
 * dispatches `live-data`): the counters over time with uPlot (loaded before this script), errors
 * by code and the funnel as SVG bars, each bar carrying its figures in `data-*` attributes. The
 * errors table below is rewritten from the same figures as the error bars. The root's
 * `data-drawn` counts the drawings, for tests to wait on. Text goes in with textContent only.
 */
import type uPlot from 'uplot';
import type { CampaignCharts } from '../../campaign-charts.js';
import { bars } from '../chart-bars.js';
import { COLORS, timeline } from '../chart-timeline.js';
import { errorsTable } from '../errors-table.js';
import { LIVE_DATA_EVENT, type LiveData } from '../live-data.js';

/** Codes that are not a failure (rejected, skipped, unknown rows): a warning's color. */
const NOT_FAILED = '#9a6700';
const OTHER_STAGE = '#57606a';

function draw(root: HTMLElement, UPlot: typeof uPlot, charts: CampaignCharts): void {
  const place = (name: string): HTMLElement | null => root.querySelector<HTMLElement>(`.${name} .plot`);
  const timelinePlace = place('timeline');
  if (timelinePlace) timeline(timelinePlace, UPlot, charts.series);
  const errorPlace = place('error-bars');
  if (charts.errors && errorPlace) {
    const items = charts.errors.map((e) => ({
      label: `${e.code} · ${e.status}`,
      rows: e.rows,
      color: e.status === 'failed' ? (COLORS.failed ?? '') : NOT_FAILED,
      data: { code: e.code, status: e.status, rows: e.rows },
    }));
    const empty = `no failed, unknown, rejected or skipped row.${charts.errorsSample ? ' (sample)' : ''}`;
    bars(errorPlace, items, 'error-bars', empty);
    errorsTable(charts.errors, charts.errorsScope);
  }
  const funnelPlace = place('funnel');
  const first = charts.funnel[0]?.rows ?? 0;
  if (funnelPlace) {
    const items = charts.funnel.map((s) => ({
      label: s.stage,
      rows: s.rows,
      note: s.stage === 'queued' || first === 0 ? '' : ` (${Math.round((100 * s.rows) / first)}%)`,
      color: COLORS[s.stage] ?? OTHER_STAGE,
      data: { stage: s.stage, rows: s.rows },
    }));
    bars(funnelPlace, items, 'funnel', 'no row queued to send.');
  }
  root.setAttribute('data-drawn', String(Number(root.getAttribute('data-drawn') ?? '0') + 1));
}

const root = document.querySelector<HTMLElement>('[data-charts]');
const UPlot = window.uPlot;
if (root && UPlot) {
  document.addEventListener(LIVE_DATA_EVENT, (event) => {
    const charts = (event as CustomEvent<LiveData | undefined>).detail?.charts;
    if (charts) draw(root, UPlot, charts);
  });
  draw(root, UPlot, JSON.parse(root.getAttribute('data-charts') ?? '{}') as CampaignCharts);
}
