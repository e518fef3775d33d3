import { ROW_STATUSES } from '../campaigns/campaign.js';
import { sendQueueName } from '../queue/queue-names.js';
import { campaignPath, field, progressBar } from './campaigns-page.js';
import { historySection } from './campaign-history-section.js';
import { chartsSection, type CampaignCharts } from './campaign-charts.js';
import { CSRF_FIELD } from './csrf.js';
import type { CampaignDetail } from './dashboard-reader.js';
import { time } from './display-format.js';
import { errorsSection } from './errors-section.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { retargetForm } from './retarget-form.js';

export const CONTROL_ACTIONS = ['pause', 'resume', 'cancel', 'reschedule'] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

/** What the page says after a control worked (the POST redirects here with `?done=<action>`). */
export const DONE_NOTICES: Record<ControlAction, string> = {
  pause: 'Paused: no new send starts; jobs already fed park at their claim. Resume continues it.',
  resume: 'Resumed: its rows are fed to the workers again, the parked ones first.',
  cancel: 'Cancelled: rows not yet sent are cancelled; rows already fed are cancelled as workers reach them.',
  reschedule: 'Rescheduled: nothing is fed before the new start.',
};

export function liveJsonPath(id: string): string {
  return `/api/campaigns/${encodeURIComponent(id)}`;
}

export function reportPath(id: string): string {
  return `${campaignPath(id)}/report.csv`;
}

export interface CampaignPageOptions {
  detail: CampaignDetail;
  /** For the control forms. */
  csrfToken: string;
  /** A control that just worked. */
  done?: ControlAction | undefined;
  /** Why a control did not (its AppError's message). */
  error?: string | undefined;
  /** Its charts (src/dashboard/campaign-charts.ts); none without. */
  charts?: CampaignCharts | undefined;
}

/** `GET /campaigns/:id`: rows by status, errors by code, the report download and the controls. */
export function campaignPage(options: CampaignPageOptions): SafeHtml {
  const { view, status, identity, tally } = options.detail;
  const id = view.id;
  const statusRows = [...ROW_STATUSES, 'delivered', 'read'] as const;
  const queueLink = html`<a href="/queues/queue/${encodeURIComponent(sendQueueName(identity.phoneNumberId))}">its queue</a>`;
  const toSend = html`${field(view, 'toSend')} to send of ${field(view, 'queuedTotal')} queued`;
  const rateAndEta = html`rate of its number ${field(view, 'rate')} · ETA ${field(view, 'eta')}`;
  const reportLink = html`<a class="button" href="${reportPath(id)}" download>Download the report (CSV)</a>`;
  const named = view.name === '' ? id : `${view.name} (${id})`;
  return page({
    title: `Campaign ${named}`,
    live: liveJsonPath(id),
    body: html`<p class="crumbs"><a href="/">Campaigns</a> › ${named}</p>
<section data-campaign="${id}" data-state="${view.state}" data-reload-on-state="1">
<h1>${view.name === '' ? id : view.name} <span class="state">${field(view, 'state')}</span></h1>
${options.done === undefined ? '' : html`<p class="notice" role="status">${DONE_NOTICES[options.done]}</p>`}
${options.error === undefined ? '' : html`<p class="error" role="alert">${options.error}</p>`}
<p class="note">${field(view, 'stateNote')}</p>
<dl class="facts">
<dt>Campaign ID</dt><dd>${id}</dd>
<dt>Sends</dt><dd>${field(view, 'message')}</dd>
<dt>Its template, as Meta last said</dt><dd>${field(view, 'template')}</dd>
<dt>From number</dt><dd>${identity.phoneNumberId || '?'} (${queueLink})</dd>
<dt>Priority</dt><dd>${status.priority}</dd>
<dt>Created</dt><dd>${field(view, 'createdAt')}</dd>
<dt>Starts</dt><dd>${time(status.startsAt)}</dd>
<dt>Started</dt><dd>${field(view, 'startedAt')}</dd>
<dt>Finished</dt><dd>${field(view, 'finishedAt')}</dd>
<dt>Expires</dt><dd>${time(status.expiresAt)}</dd>
${
  identity.window === undefined
    ? ''
    : html`<dt>Send window</dt><dd>${field(view, 'window')}</dd>
<dt>Waiting for their window</dt><dd>${field(view, 'waiting')} rows · next opening ${field(view, 'nextWindow')}</dd>`
}
</dl>
<p class="progress big">${progressBar(view)} ${field(view, 'progress')} sent · ${toSend} · ${rateAndEta}</p>
${controls(options)}
${retargetForm(view, identity.sameMessage, options.csrfToken)}
<h2>Rows by status</h2>
<table class="statuses">
<thead><tr>${statusRows.map((s) => html`<th>${s}</th>`)}</tr></thead>
<tbody><tr>${statusRows.map((s) => html`<td class="n">${field(view, s)}</td>`)}</tr></tbody>
</table>
<p class="footnote">delivered and read: rows Meta reported so by status webhook (a read row counts in both; they are sent rows).</p>
${options.charts === undefined ? '' : chartsSection(options.charts)}
<h2>Errors by code</h2>
${errorsSection(tally, status.counts.total)}
<h2>Report</h2>
<p>${reportLink} one line per row, as <code>campaign report ${id}</code> writes it.</p>
${historySection(options.detail.history)}
</section>`,
  });
}

/** The reschedule field: the browser checks for an ISO 8601 instant before the form is sent. */
const START_CHECK = html`pattern="\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}.*" title="ISO 8601 with its offset, e.g. 2026-12-01T09:00:00+01:00"`;
const START_INPUT = html`<input type="text" name="at" required placeholder="2026-12-01T09:00:00+01:00" ${START_CHECK}>`;

function controls(options: CampaignPageOptions): SafeHtml {
  const { view, status } = options.detail;
  const state = view.state;
  const open = state !== 'cancelled' && state !== 'completed';
  const form = (action: ControlAction, inner: SafeHtml, confirm?: string) =>
    html`<form method="post" action="${campaignPath(view.id)}/${action}"${confirm === undefined ? '' : html` data-confirm="${confirm}"`}>
<input type="hidden" name="${CSRF_FIELD}" value="${options.csrfToken}">
${inner}
</form>`;
  const forms: SafeHtml[] = [];
  if (state === 'running' || state === 'ingesting' || state === 'scheduled')
    forms.push(form('pause', html`<button type="submit" name="action" value="pause">Pause</button>`));
  if (state === 'paused') forms.push(form('resume', html`<button type="submit" name="action" value="resume">Resume</button>`));
  if (open)
    forms.push(
      form(
        'cancel',
        html`<button type="submit" class="danger" name="action" value="cancel">Cancel</button>`,
        `Cancel campaign ${view.id} for good? Rows not yet sent will never be sent.`,
      ),
    );
  if (open && status.startedAt === undefined) {
    forms.push(
      form(
        'reschedule',
        html`<label>New start ${START_INPUT}</label> <button type="submit" name="action" value="reschedule">Reschedule</button>`,
      ),
    );
  }
  if (forms.length === 0) return html`<p class="controls none">No control applies to a ${state} campaign.</p>`;
  return html`<div class="controls">${forms}</div>`;
}
