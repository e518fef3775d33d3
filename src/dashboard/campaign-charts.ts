import type { CampaignStatus } from '../campaigns/campaign.js';
import { timelineSeries, type CampaignTimeline, type TimelineSeries } from '../campaigns/report/campaign-timeline.js';
import type { ErrorTally } from './error-tallies.js';
import { html, type SafeHtml } from './html.js';

/** Where the charts' own script and uPlot's files are served (src/dashboard/chart-assets.ts). */
export const CHART_ASSET_PATHS = {
  script: '/dashboard/charts.js',
  uplotScript: '/dashboard/uplot.min.js',
  uplotStyle: '/dashboard/uplot.min.css',
} as const;

export const FUNNEL_STAGES = ['queued', 'sent', 'delivered', 'read', 'replied'] as const;
export type FunnelStage = (typeof FUNNEL_STAGES)[number];

/**
 * What a campaign's charts draw, as the page carries it (`data-charts`) and its live JSON
 * (`charts`): the counters over time (uPlot's layout), errors by code, and the funnel.
 */
export interface CampaignCharts {
  series: TimelineSeries;
  /** One bar per status and code, most rows first; absent while not counted yet (the page keeps the bars it has). */
  errors?: { status: string; code: string; rows: number }[] | undefined;
  /** The error count stopped at its cap: the bars are a sample. */
  errorsSample?: boolean | undefined;
  funnel: { stage: FunnelStage; rows: number }[];
}

/**
 * The charts' figures from the campaign's status, its timeline and its errors by code. The
 * funnel: `queued` is every row it took to send (all but those refused when its file was
 * read), then the rows Meta accepted (`sent`: delivered and read rows are sent rows), those it
 * reported delivered and read, and the rows whose recipient replied to their message.
 */
export function campaignCharts(status: CampaignStatus, timeline: CampaignTimeline, tally: ErrorTally | undefined): CampaignCharts {
  const c = status.counts;
  const funnelRows: Record<FunnelStage, number> = {
    queued: c.total - c.rejected,
    sent: c.sent,
    delivered: c.delivered,
    read: c.read,
    replied: timeline.counts.replied,
  };
  return {
    series: timelineSeries(timeline),
    errors: tally?.codes.map((e) => ({ status: e.status, code: e.code, rows: e.rows })),
    errorsSample: tally === undefined ? undefined : !tally.complete,
    funnel: FUNNEL_STAGES.map((stage) => ({ stage, rows: funnelRows[stage] })),
  };
}

/**
 * The charts' section of a campaign's page: empty figures the page's charts script
 * (src/dashboard/chart-assets.ts) draws from `data-charts` and redraws at each live update.
 * It brings its own files (uPlot's and the script), so the pages without charts load none.
 */
export function chartsSection(charts: CampaignCharts): SafeHtml {
  return html`<h2>Charts</h2>
<link rel="stylesheet" href="${CHART_ASSET_PATHS.uplotStyle}">
<script src="${CHART_ASSET_PATHS.uplotScript}" defer></script>
<script src="${CHART_ASSET_PATHS.script}" defer></script>
<div class="charts" data-charts="${JSON.stringify(charts)}">
<figure class="chart timeline"><figcaption>Rows sent, delivered, read and failed over time (UTC)</figcaption>
<div class="plot"></div></figure>
<figure class="chart error-bars"><figcaption>Errors by code (rows)</figcaption><div class="plot"></div></figure>
<figure class="chart funnel"><figcaption>Funnel: queued, then sent, delivered, read and replied (rows)</figcaption>
<div class="plot"></div></figure>
</div>
<p class="footnote">The time chart shows the ledger's counters as they moved (a sent row Meta later reports failed moves from one
line to the other), counted when each change was recorded: by the minute for a campaign's first 6 hours, then by the hour, after
7 days by the day. Errors by code are those of the table below.</p>`;
}
