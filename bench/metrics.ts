import { runToExit, startChild } from './support/children.js';
import { figure, type SectionResult } from './support/figures.js';
import { ROOT, benchScriptArgs, productEnv } from './support/product.js';

/**
 * The cost of /metrics: one GET /metrics with 50 campaigns and 1,000,000 queued rows
 * (bench/metrics-scrape.ts, run as a child per run: it records the rows on a fresh prefix,
 * scrapes an in-process `campaign serve` 20 times and deletes the prefix), beside a GET
 * /healthz of the same service (the bare HTTP round trip). The drain ratio with a scraper
 * hitting /metrics every second is the drain section's "scraped" side.
 */
export const SCRAPE_CAMPAIGNS = 50;
export const SCRAPE_ROWS = 1_000_000;

interface ScrapeRun {
  medianMs: number;
  maxMs: number;
  healthzMedianMs: number;
  queuedRows: number;
  campaignRowSeries: number;
}

export async function benchMetrics(options: { runs: number }): Promise<SectionResult> {
  const measured: ScrapeRun[] = [];
  for (let i = 0; i < options.runs; i++) {
    const child = startChild(
      'metrics-scrape',
      process.execPath,
      benchScriptArgs('metrics-scrape.ts', ['--campaigns', String(SCRAPE_CAMPAIGNS), '--rows', String(SCRAPE_ROWS)]),
      productEnv('bench-metrics'),
      ROOT,
    );
    await runToExit(child, 600_000);
    const line = child
      .stdout()
      .split('\n')
      .find((l) => l.startsWith('{'));
    if (line === undefined) throw new Error(`metrics-scrape printed no result:\n${child.tail()}`);
    const run = JSON.parse(line) as ScrapeRun;
    measured.push(run);
    console.error(
      `  metrics run ${i + 1}/${options.runs}: scrape median ${run.medianMs} ms (max ${run.maxMs}), ` +
        `/healthz ${run.healthzMedianMs} ms, ${run.queuedRows} queued rows`,
    );
  }
  return {
    section: 'metrics',
    figures: [
      figure({
        label: `GET /metrics, ${SCRAPE_CAMPAIGNS} campaigns, ${SCRAPE_ROWS.toLocaleString('en-US')} queued rows`,
        unit: 'ms',
        ours: measured.map((r) => r.medianMs),
        baseline: measured.map((r) => r.healthzMedianMs),
        baselineLabel: 'GET /healthz, same service',
        judgedOn: 'median',
        target: '< 100 ms',
        digits: 1,
        check: (value) => (value < 100 ? [] : ['>= 100 ms']),
      }),
    ],
    runs: measured.map((r) => ({ ...r })),
    notes: [`metrics: series of cw_campaign_rows per scrape: ${measured.map((r) => r.campaignRowSeries).join(', ')}`],
    method: [
      `metrics: per run, bench/metrics-scrape.ts records ${SCRAPE_CAMPAIGNS} campaigns of ${SCRAPE_ROWS / SCRAPE_CAMPAIGNS} ` +
        `queued rows each over 5 phone numbers (with each number's BullMQ window fed) on a fresh prefix, ` +
        `then times 20 GET /metrics of an in-process \`campaign serve\` after one warm-up scrape; the figure ` +
        `is the median of the runs' medians, beside 20 GET /healthz of the same service.`,
    ],
  };
}
