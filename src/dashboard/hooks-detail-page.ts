import type { DeadHookEvent, HookView } from '../hooks/hook.js';
import { CSRF_FIELD } from './csrf.js';
import { count, DASH, time } from './display-format.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { eventsText, HOOKS_PATH, hookPath, lag } from './hooks-page.js';

/** Dead letters the page lists (`campaign hooks failed NAME` shows more). */
export const FAILED_SHOWN = 100;

export interface HookDetailOptions {
  hook: HookView;
  failed: readonly DeadHookEvent[];
  csrfToken: string;
  /** What the receiver answered to the test just sent. */
  tested?: { ok: boolean; status: number; reason?: string };
  /** How many dead letters were just put back. */
  redelivered?: number;
}

/**
 * `GET /hooks/<name>`: the hook, its figures, its dead letters (events given up on after
 * HOOK_RETRY_HOURS) with a button that sends them again, a test send and its removal. Never
 * its secret.
 */
export function hookDetailPage(options: HookDetailOptions): SafeHtml {
  const { hook, failed, csrfToken } = options;
  const figures = hook.figures;
  const row = (label: string, field: string, value: string) =>
    html`<tr><th>${label}</th><td class="num" data-figure="${field}">${value}</td></tr>`;
  return page({
    title: `Hook ${hook.name}`,
    body: html`<p class="crumbs"><a href="${HOOKS_PATH}">Hooks</a> › ${hook.name}</p>
<h1>${hook.name}</h1>
${testNotice(options.tested)}
${redeliveredNotice(options.redelivered)}
<table class="figures" id="hook" data-hook="${hook.name}">
<tr><th>URL</th><td><code>${hook.url}</code></td></tr>
<tr><th>Events</th><td>${eventsText(hook.events)}</td></tr>
<tr><th>Campaign</th><td>${hook.campaignId ?? 'every campaign'}</td></tr>
<tr><th>Added</th><td>${time(hook.createdAt)}</td></tr>
${row('Queued', 'queued', count(figures.queued))}
${row('Delivered', 'delivered', count(figures.delivered))}
${row('Retried', 'retried', count(figures.retried))}
${row('Dead', 'dead', count(figures.dead))}
${row('Waiting', 'waiting', count(figures.waiting))}
${row('Delivery lag', 'lagSeconds', lag(figures.lagSeconds))}
</table>
${actionForm(hook.name, 'test', csrfToken, 'Send a test event', undefined)}
<h2>Dead letters</h2>
${failedTable(failed, figures.dead)}
${failed.length === 0 ? '' : actionForm(hook.name, 'redeliver', csrfToken, 'Deliver them again', redeliverQuestion(hook))}
${actionForm(hook.name, 'remove', csrfToken, 'Remove the hook', removeQuestion(hook.name), 'danger')}`,
  });
}

function redeliverQuestion(hook: HookView): string {
  return `Send the ${count(hook.figures.dead)} dead letters of ${hook.name} again?`;
}

function removeQuestion(name: string): string {
  return `Remove hook ${name}, its waiting events and its dead letters?`;
}

function redeliveredNotice(redelivered: number | undefined): SafeHtml | '' {
  if (redelivered === undefined) return '';
  const letters = redelivered === 1 ? 'dead letter' : 'dead letters';
  return html`<p class="notice" role="status">${count(redelivered)} ${letters} put back to be delivered again.</p>`;
}

function testNotice(tested: HookDetailOptions['tested']): SafeHtml | '' {
  if (tested === undefined) return '';
  const delivered = `Test event delivered: the receiver answered HTTP ${tested.status}.`;
  if (tested.ok) return html`<p class="notice" role="status" id="hook-tested">${delivered}</p>`;
  const why = tested.reason ?? `HTTP ${tested.status}`;
  return html`<p class="error" role="alert" id="hook-tested">Test event not delivered: ${why}.</p>`;
}

function failedTable(failed: readonly DeadHookEvent[], dead: number): SafeHtml {
  if (failed.length === 0) return html`<p class="empty" id="hook-failed">No dead letter.</p>`;
  const more =
    dead > failed.length
      ? html`<p class="sub">The first ${count(failed.length)}: <code>campaign hooks failed</code> lists every one.</p>`
      : '';
  return html`<table class="campaigns" id="hook-failed">
<thead><tr><th>Given up</th><th>Event</th><th>Campaign</th><th>Row</th><th>Phone</th><th>Why</th><th>ID</th></tr></thead>
<tbody>
${failed.map(
  ({ event, failedAt, reason }) => html`<tr>
<td>${time(failedAt)}</td><td>${event.type}</td><td>${event.campaign_id}</td><td class="num">${event.row ?? DASH}</td>
<td>${event.phone ?? DASH}</td><td>${reason}</td><td><code>${event.id}</code></td>
</tr>`,
)}
</tbody>
</table>${more}`;
}

/** A button that POSTs to `/hooks/<name>/<action>` with the page's token (asked first when `confirm` is given). */
function actionForm(name: string, action: string, csrfToken: string, label: string, confirm: string | undefined, kind?: string): SafeHtml {
  return html`<form method="post" action="${hookPath(name)}/${action}" class="controls"${
    confirm === undefined ? '' : html` data-confirm="${confirm}"`
  }>
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">
<button type="submit"${kind === undefined ? '' : html` class="${kind}"`}>${label}</button>
</form>`;
}

/** A hook of no such name (404). */
export function hookNotFoundPage(name: string): SafeHtml {
  return page({
    title: 'Not found',
    body: html`<h1>No hook ${name}</h1>
      <p>There is no hook of this name. <a href="${HOOKS_PATH}">All hooks</a></p>`,
  });
}
