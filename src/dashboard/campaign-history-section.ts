import { describeActor, type HistoryEntry } from '../campaigns/history/campaign-history.js';
import { clip, time } from './display-format.js';
import { html, type SafeHtml } from './html.js';

/**
 * The campaign page's History: who created the campaign and who controlled it since (an API
 * token, the dashboard's user, an operator at the CLI), newest first. Read with the page,
 * not live: a control made here reloads the page anyway.
 */
export function historySection(history: readonly HistoryEntry[] | undefined): SafeHtml {
  if (history === undefined) return html``;
  const body =
    history.length === 0
      ? html`<p class="history none">Nothing recorded for this campaign.</p>`
      : html`<table class="history">
<thead><tr><th>Time</th><th>Who</th><th>Action</th><th>Detail</th></tr></thead>
<tbody>
${history.map(historyRow)}
</tbody>
</table>`;
  return html`<h2>History</h2>
${body}`;
}

function historyRow(entry: HistoryEntry): SafeHtml {
  const who = html`<td data-actor="${entry.actor.kind}">${describeActor(entry.actor)}</td>`;
  return html`<tr><td>${time(entry.at)}</td>${who}<td>${entry.action}</td><td class="detail">${clip(entry.detail ?? '', 300)}</td></tr>`;
}
