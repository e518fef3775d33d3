import type { CampaignView, ViewField } from './campaign-view.js';
import { time } from './display-format.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { NEW_CAMPAIGN_PATH } from './new-campaign-page.js';
import type { AccountError } from '../campaigns/settle/account-errors.js';
import { accountErrorsSection } from './account-errors-section.js';

/** The JSON the campaigns list polls. */
export const LIST_JSON_PATH = '/api/campaigns';

export function campaignPath(id: string): string {
  return `/campaigns/${encodeURIComponent(id)}`;
}

/** A figure the page's script keeps up to date. */
export function field(view: CampaignView, name: ViewField): SafeHtml {
  return html`<span data-field="${name}">${view.fields[name]}</span>`;
}

export function progressBar(view: CampaignView): SafeHtml {
  return html`<progress max="100" value="${view.progress}">${view.fields.progress}</progress>`;
}

/**
 * `GET /`: every campaign with its state, progress, the rate of its number, ETA, counts and
 * errors by code; above them, the account errors Meta reported lately, if any. The figures are
 * refreshed every 2 s by the page's script from LIST_JSON_PATH.
 */
export function campaignsPage(views: readonly CampaignView[], now: number, accountErrors: readonly AccountError[] = []): SafeHtml {
  const rows = views.map(campaignRow);
  const table =
    views.length === 0
      ? html`<p class="empty">No campaigns under this QUEUE_PREFIX yet: <code>campaign send FILE …</code> creates one.</p>`
      : html`<table class="campaigns">
<thead><tr>${COLUMNS.map((c) => html`<th>${c}</th>`)}</tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
  return page({
    title: 'Campaigns',
    live: LIST_JSON_PATH,
    body: html`<h1>Campaigns</h1>
<p class="actions"><a class="button" href="${NEW_CAMPAIGN_PATH}">New campaign</a></p>
${accountErrorsSection(accountErrors, now)}
${table}
<p class="footnote">${PROGRESS_NOTE} ${RATE_NOTE} ${ETA_NOTE} ${ERRORS_NOTE} Read at <span id="updated">${time(now)}</span>.</p>`,
  });
}

const COLUMNS = [
  'Campaign',
  'State',
  'Progress',
  'Sent',
  'Delivered',
  'Read',
  'Failed',
  'Rejected / skipped',
  'Rate (its number)',
  'ETA',
  'Errors by code',
];

const RATE_NOTE = html`Rate: requests per second of the campaign's phone number over the last 10 s, every worker together.`;
const ETA_RATE_NOTE = html`at the rate achieved since it started (a windowed campaign, or one with no answer yet: its number's SEND_RATE).`;
const ETA_NOTE = html`ETA: with the campaign's send window, days and expiry, as <code>campaign send</code> plans it, ${ETA_RATE_NOTE}`;
const ERRORS_NOTE = html`Errors by code: failed and unknown rows, counted from the rows (see a campaign's page).`;
const PROGRESS_NOTE = html`Progress: rows sent (sent, failed or unknown) of the rows it took to send (not those rejected or skipped);
cancelled and expired rows were never sent.`;

function campaignRow(v: CampaignView): SafeHtml {
  // A campaign stored without a name is shown by its ID alone.
  const link =
    v.name === ''
      ? html`<a href="${campaignPath(v.id)}">${v.id}</a>`
      : html`<a href="${campaignPath(v.id)}" class="name">${v.name}</a><div class="sub">${v.id}</div>`;
  const toSend = html`<div class="sub">${field(v, 'toSend')} to send of ${field(v, 'queuedTotal')} queued</div>`;
  return html`<tr data-campaign="${v.id}" data-state="${v.state}">
<td class="id">${link}<div class="sub">${field(v, 'message')}</div>
<div class="sub">${field(v, 'template')}</div><div class="sub">from ${v.phoneNumberId || '?'}</div></td>
<td><span class="state">${field(v, 'state')}</span><div class="sub note">${field(v, 'stateNote')}</div></td>
<td class="progress">${progressBar(v)} ${field(v, 'progress')}${toSend}</td>
<td class="n">${field(v, 'sent')}<div class="sub">held ${field(v, 'held')}</div></td>
<td class="n">${field(v, 'delivered')}</td>
<td class="n">${field(v, 'read')}</td>
<td class="n">${field(v, 'failed')}</td>
<td class="n">${field(v, 'rejected')} / ${field(v, 'skipped')}</td>
<td class="n">${field(v, 'rate')}</td>
<td class="n">${field(v, 'eta')}</td>
<td class="errors">${field(v, 'errors')}</td>
</tr>`;
}
