import { ERROR_SCAN_CAP } from '../campaigns/report/error-codes.js';
import { clip, count, time } from './display-format.js';
import type { ErrorTally } from './error-tallies.js';
import { html, type SafeHtml } from './html.js';

/** How much of a row's detail the table and the charts' live data carry. */
export const ERROR_EXAMPLE_MAX = 300;

/**
 * Over which rows and when the errors were counted: one sentence, as plain text, so the page
 * writes it and the charts' script (which redraws the table with each live update, from the
 * same count as the error bars) can write it again.
 */
export function errorsScope(tally: ErrorTally, total: number): string {
  if (tally.scanned === 0) return '';
  if (tally.complete) return `Counted over all ${count(tally.scanned)} rows at ${time(tally.at)}.`;
  const sample = `the count stops at ${count(ERROR_SCAN_CAP)} rows, so these are a sample`;
  return `Counted over the first ${count(tally.scanned)} rows read (of ${count(total)}; ${sample}) at ${time(tally.at)}.`;
}

/**
 * A campaign page's errors by code: the rows of each status and code, with one detail each.
 * The same count the error bars draw (src/dashboard/campaign-charts.ts); the charts' script
 * (src/dashboard/browser/errors-table.ts) rewrites the table body, the "none" line and the scope
 * with each live update, so the bars and the table never disagree.
 */
export function errorsSection(tally: ErrorTally, total: number): SafeHtml {
  const some = tally.codes.length > 0;
  return html`<div class="errors-by-code">
<p class="errors-none"${some ? html` hidden` : ''}>No failed, unknown, rejected or skipped row.</p>
<table class="errors"${some ? '' : html` hidden`}>
<thead><tr><th>Status</th><th>Code</th><th>Rows</th><th>Detail (one of them)</th></tr></thead>
<tbody>
${tally.codes.map(errorRow)}
</tbody>
</table>
<p class="footnote"><span data-errors-scope>${errorsScope(tally, total)}</span> ${COUNTED_FROM_ROWS} ${REUSED_UNTIL_CHANGE}</p>
</div>`;
}

const COUNTED_FROM_ROWS = html`Rows are counted from the ledger's rows, each once by its status now (the ledger keeps no count per code);`;
const REUSED_UNTIL_CHANGE = html`a campaign's count is reused until its failed, unknown, rejected or skipped counts change.`;

function errorRow(e: ErrorTally['codes'][number]): SafeHtml {
  const rows = html`<td class="n">${count(e.rows)}</td><td class="detail">${clip(e.example, ERROR_EXAMPLE_MAX)}</td>`;
  return html`<tr><td>${e.status}</td><td><code>${e.code}</code></td>${rows}</tr>`;
}
