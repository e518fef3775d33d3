import type { CampaignStatus } from '../campaigns/campaign.js';
import { timelineSeries, type CampaignTimeline, type TimelineSeries } from '../campaigns/report/campaign-timeline.js';
import { clip } from './display-format.js';
import type { ErrorTally } from './error-tallies.js';
import { ERROR_EXAMPLE_MAX, errorsScope } from './errors-section.js';
import { html, type SafeHtml } from './html.js';
import { queuedRows } from './row-figures.js';

/** Where the charts' own script (src/dashboard/browser/scripts/charts.ts) and uPlot's files are served (src/dashboard/page-assets.ts). */
export const CHART_ASSET_PATHS = {
  script: '/dashboard/charts.js',
  uplotScript: '/dashboard/uplot.min.js',
  uplotStyle: '/dashboard/uplot.min.css',
} as const;

/** `clicked` is a stage of a campaign that tracks clicks (`send --track-clicks`) only. */
export const FUNNEL_STAGES = ['queued', 'sent', 'delivered', 'read', 'replied', 'clicked'] as const;
export type FunnelStage = (typeof FUNNEL_STAGES)[number];

/**
 * What a campaign's charts draw, as the page carries it (`data-charts`) and its live JSON
 * (`charts`): the counters over time (uPlot's layout), errors by code, and the funnel.
 */
export interface CampaignCharts {
  series: TimelineSeries;
  /**
   * One bar per status and code, most rows first, with one row's detail: the rows of the page's
   * errors table, which the script redraws from them. Absent while not counted yet (the page
   * keeps the bars and the table it has).
   */
  errors?: { status: string; code: string; rows: number; example: string }[] | undefined;
  /** The error count stopped at its cap: the bars are a sample. */
  errorsSample?: boolean | undefined;
  /** Over which rows and when they were counted (errorsScope), for the table's footnote. */
  errorsScope?: string | undefined;
  funnel: { stage: FunnelStage; rows: number }[];
}

/**
 * The charts' figures from the campaign's status, its timeline and its errors by code (the
 * count its errors table shows: rows, each once by its status now). The funnel: `queued` is
 * every row it took to send (queuedRows: not those rejected or skipped, so it says what the
 * dry run said would be sent), then the rows Meta accepted (`sent`: delivered and read rows
 * are sent rows), those it reported delivered and read, the rows whose recipient replied, and (a campaign that tracks
 * clicks) the rows whose link was clicked.
 */
export function campaignCharts(status: CampaignStatus, timeline: CampaignTimeline, tally: ErrorTally | undefined): CampaignCharts {
  const c = status.counts;
  const funnelRows: Record<FunnelStage, number | undefined> = {
    queued: queuedRows(c),
    sent: c.sent,
    delivered: c.delivered,
    read: c.read,
    replied: timeline.counts.replied,
    clicked: timeline.counts.clicked,
  };
  return {
    series: timelineSeries(timeline),
    errors: tally?.codes.map((e) => ({ status: e.status, code: e.code, rows: e.rows, example: clip(e.example, ERROR_EXAMPLE_MAX) })),
    errorsSample: tally === undefined ? undefined : !tally.complete,
    errorsScope: tally === undefined ? undefined : errorsScope(tally, c.total),
    funnel: FUNNEL_STAGES.flatMap((stage) => {
      const rows = funnelRows[stage];
      return rows === undefined ? [] : [{ stage, rows }];
    }),
  };
}

/**
 * The charts' section of a campaign's page: empty figures the page's charts script
 * (src/dashboard/browser/scripts/charts.ts) draws from `data-charts` and redraws at each live update.
 * It brings its own files (uPlot's and the script), so the pages without charts load none.
 */
export function chartsSection(charts: CampaignCharts): SafeHtml {
  return html`<h2>Charts</h2>
<link rel="stylesheet" href="${CHART_ASSET_PATHS.uplotStyle}">
<script src="${CHART_ASSET_PATHS.uplotScript}" defer></script>
<script src="${CHART_ASSET_PATHS.script}" defer></script>
<div class="charts" data-charts="${JSON.stringify(charts)}">
<figure class="chart timeline"><figcaption>Rows sent, delivered, read and failed over time (times in UTC)</figcaption>
<div class="plot"></div></figure>
<figure class="chart error-bars"><figcaption>Errors by code: rows by their status now, as in the table below</figcaption>
<div class="plot"></div></figure>
<figure class="chart funnel"><figcaption>Funnel: rows queued to send (not those rejected or skipped), then sent, delivered, read and replied
(and clicked, when the campaign tracks its links)</figcaption><div class="plot"></div></figure>
</div>
<p class="footnote">The time chart shows the ledger's counters as they moved (a sent row Meta later reports failed moves from one
line to the other), counted when each change was recorded: by the minute for a campaign's first 6 hours, then by the hour, after
7 days by the day. The error bars and the errors table below are the same count of rows, and move together.</p>`;
}
