import { EVENT_TYPES } from '../events/campaign-event.js';
import type { HookFigures, HookView } from '../hooks/hook.js';
import { CSRF_FIELD } from './csrf.js';
import { count, DASH, duration, time } from './display-format.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';

/** Where the Hooks pages are served. */
export const HOOKS_PATH = '/hooks';
/** A form's event checkboxes are named `event:<type>` (the pages' form parser keeps one value per name). */
export const EVENT_FIELD_PREFIX = 'event:';

/** `/hooks/<name>`: a name is of a URL-safe form (HOOK_NAME), encoded all the same. */
export function hookPath(name: string): string {
  return `${HOOKS_PATH}/${encodeURIComponent(name)}`;
}

/** What the add form held, shown again with the refusal. */
export interface HookFormValues {
  url: string;
  events: readonly string[];
  campaignId: string;
  name: string;
}

export interface HooksPageOptions {
  hooks: readonly HookView[];
  csrfToken: string;
  /** A hook just added, with its secret: the one time it is shown. */
  added?: { hook: HookView; secret: string };
  /** Why the add form was refused, with what it held. */
  refused?: { message: string; values: HookFormValues };
  /** A hook just removed. */
  removed?: string;
}

const NO_VALUES: HookFormValues = { url: '', events: [], campaignId: '', name: '' };

/**
 * `GET /hooks`: every outbound hook with its figures (events queued, delivered, retried, dead,
 * waiting, the delivery lag), and a form to add one. A hook's secret is on the page only in
 * the answer to the form that added it: no page shows it again.
 */
export function hooksPage(options: HooksPageOptions): SafeHtml {
  const { hooks, csrfToken, added, refused, removed } = options;
  return page({
    title: 'Hooks',
    body: html`<h1>Hooks</h1>
<p class="sub">URLs of your own systems that this service POSTs campaign events to, in signed batches, at least once
(docs/events.md). The figures count events since the hook was added.</p>
${added === undefined ? '' : addedNotice(added.hook, added.secret)}
${removed === undefined ? '' : html`<p class="notice" role="status">Hook ${removed} removed, with its waiting events and dead letters.</p>`}
${
  hooks.length === 0
    ? html`<p class="empty" id="hooks">No hook yet: add one below.</p>`
    : html`<table class="campaigns hooks" id="hooks">
<thead><tr><th>Hook</th><th>URL</th><th>Events</th><th>Campaign</th>${FIGURE_HEADS}</tr></thead>
<tbody>
${hooks.map(hookRow)}
</tbody>
</table>`
}
${addForm(csrfToken, refused)}`,
  });
}

const FIGURE_HEADS = html`<th>Queued</th><th>Delivered</th><th>Retried</th><th>Dead</th><th>Waiting</th><th>Lag</th>`;

/** The six figures as table cells, each named for a reader (and a test) by `data-figure`. */
export function figureCells(figures: HookFigures): SafeHtml {
  const cell = (name: keyof HookFigures, value: string) => html`<td class="num" data-figure="${name}">${value}</td>`;
  return html`${cell('queued', count(figures.queued))}${cell('delivered', count(figures.delivered))}${cell(
    'retried',
    count(figures.retried),
  )}${cell('dead', count(figures.dead))}${cell('waiting', count(figures.waiting))}${cell('lagSeconds', lag(figures.lagSeconds))}`;
}

export function lag(seconds: number | undefined): string {
  return seconds === undefined ? DASH : duration(seconds);
}

/** A hook's events, shortened to `all` when it takes every one. */
export function eventsText(events: readonly string[]): string {
  return events.length === EVENT_TYPES.length ? 'all' : events.join(', ');
}

function hookRow(hook: HookView): SafeHtml {
  return html`<tr data-hook="${hook.name}">
<td><a href="${hookPath(hook.name)}">${hook.name}</a></td>
<td><code>${hook.url}</code></td>
<td>${eventsText(hook.events)}</td>
<td>${hook.campaignId ?? 'every campaign'}</td>
${figureCells(hook.figures)}
</tr>`;
}

function addedNotice(hook: HookView, secret: string): SafeHtml {
  return html`<section class="notice" role="status" id="hook-added">
<p>Hook <a href="${hookPath(hook.name)}">${hook.name}</a> added: it receives ${eventsText(hook.events)} of
${hook.campaignId ?? 'every campaign'}, at <code>${hook.url}</code>, from ${time(hook.createdAt)} on.</p>
<p>Its secret, which signs every batch (<code>X-Campaign-Signature</code>): <code id="hook-secret">${secret}</code></p>
<p><strong>It is shown this once and cannot be shown again: keep it in your secret store now.</strong></p>
</section>`;
}

/** The add form: a plain POST with the page's token (a hook's secret must come back in the answer, once). */
function addForm(csrfToken: string, refused: HooksPageOptions['refused']): SafeHtml {
  const values = refused?.values ?? NO_VALUES;
  const chosen = new Set(values.events);
  const box = (type: string) => {
    const checked = chosen.has(type) ? html` checked` : '';
    return html`<label><input type="checkbox" name="${EVENT_FIELD_PREFIX}${type}" value="1"${checked}> ${type}</label>`;
  };
  return html`<form method="post" action="${HOOKS_PATH}" id="hook-add" class="new-campaign">
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">
<fieldset>
<legend>Add a hook</legend>
${refused === undefined ? '' : html`<p class="error" role="alert">${refused.message}</p>`}
<label>URL <input type="text" name="url" required maxlength="2048" inputmode="url" value="${values.url}"
 placeholder="https://crm.example.com/hooks/campaigns"></label><br>
<p class="sub">Events:</p>
${EVENT_TYPES.map(box)}<br>
<label>Campaign <input type="text" name="campaignId" maxlength="64" value="${values.campaignId}" placeholder="every campaign"></label>
<label>Name <input type="text" name="name" maxlength="64" value="${values.name}" placeholder="the URL's host"></label>
<p class="sub">Its secret is shown once, on the page that answers this form.</p>
</fieldset>
<div class="controls"><button type="submit">Add the hook</button></div>
</form>`;
}
