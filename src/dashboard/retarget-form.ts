import type { CampaignMessage } from '../campaigns/campaign.js';
import type { CampaignView } from './campaign-view.js';
import { html, type SafeHtml } from './html.js';

export const RETARGET_SCRIPT_PATH = '/dashboard/retarget.js';

/** `campaign retarget --status` values, with what each takes. */
const RETARGET_STATUSES = [
  ['failed', 'its failed rows'],
  ['delivered-not-read', 'rows delivered but not read'],
  ['not-replied', 'rows sent, delivered or read with no reply'],
] as const;
const STATUS_OPTIONS = RETARGET_STATUSES.map(([value, label]) => html`<option value="${value}">${label}</option>`);

/**
 * The message of a retarget that sends what the source sent, in the retarget route's fields
 * (`campaign retarget`'s flags): its template with the columns that filled it (the retargeted
 * rows keep the source's columns), or its text.
 */
export type SameMessage =
  | {
      template: string;
      language: string;
      params?: string[];
      param?: Record<string, string>;
      headerTextColumn?: string;
      headerImageColumn?: string;
      buttonUrlColumn?: string[];
    }
  | { text: string; previewUrl: boolean };

export function sameMessageOf(message: CampaignMessage): SameMessage {
  if (message.kind === 'text') return { text: message.text.body, previewUrl: message.text.previewUrl };
  const { plan } = message;
  const same: SameMessage = { template: plan.name, language: plan.language };
  if (plan.parameterFormat === 'NAMED') {
    // Named variables, in the body, header or a button, by name.
    if (plan.slots.length > 0) same.param = Object.fromEntries(plan.slots.map((s) => [s.variable, s.column]));
  } else {
    const body = plan.slots.filter((s) => s.component === 'body').sort((a, b) => Number(a.variable) - Number(b.variable));
    if (body.length > 0) same.params = body.map((s) => s.column);
    const header = plan.slots.find((s) => s.component === 'header');
    if (header !== undefined) same.headerTextColumn = header.column;
    const buttons = plan.slots.filter((s) => s.component === 'button').sort((a, b) => (a.buttonIndex ?? 0) - (b.buttonIndex ?? 0));
    if (buttons.length > 0) same.buttonUrlColumn = buttons.map((s) => s.column);
  }
  if (plan.headerMedia !== undefined) same.headerImageColumn = plan.headerMedia.column;
  return same;
}

/**
 * A finished (completed or cancelled) campaign's Retarget form: a new campaign of the chosen
 * rows, with the same message (`same`) or another template, through
 * `POST /api/v1/campaigns/{id}/retarget` (what `campaign retarget` runs), sent by the script
 * below with the page's CSRF token; nothing for a campaign still running.
 */
export function retargetForm(view: Pick<CampaignView, 'id' | 'state'>, same: SameMessage | undefined, csrfToken: string): SafeHtml {
  if (view.state !== 'completed' && view.state !== 'cancelled') return html``;
  // Without its own message (a definition not read), a template must be chosen.
  const sameOption = same === undefined ? '' : html`<option value="">the same</option>`;
  return html`<h2>Retarget</h2>
<form id="retarget" class="controls retarget" data-source="${view.id}" data-csrf-token="${csrfToken}"
 data-same="${same === undefined ? '' : JSON.stringify(same)}" novalidate>
<label>Rows <select name="status">${STATUS_OPTIONS}</select></label>
<label>at least <input type="text" name="after" placeholder="24h" size="6"> ago</label>
<label>Message <select name="template">${sameOption}</select></label>
<label>Language <select name="language"><option value="">–</option></select></label>
<button type="submit">Retarget</button>
<span class="sub" data-retarget-status role="status"></span>
</form>
<div id="retarget-problems"></div>
<p class="footnote">A new campaign of this one's chosen rows, from the same number with the same columns and values
(<code>campaign retarget ${view.id}</code>); the duplicate window still applies.</p>
<script src="${RETARGET_SCRIPT_PATH}" defer></script>`;
}

/**
 * The Retarget form's script: fills the template choices from `GET /api/v1/templates`, posts
 * the form as JSON to the API with the page's CSRF token and opens the new campaign's page;
 * a refusal shows every problem (textContent only).
 */
export const RETARGET_SCRIPT = String.raw`'use strict';
(function () {
  var form = document.getElementById('retarget');
  if (!form) return;
  var token = form.getAttribute('data-csrf-token') || '';
  var source = form.getAttribute('data-source') || '';
  var status = form.querySelector('[data-retarget-status]');
  var problems = document.getElementById('retarget-problems');
  var templates = [];
  function headers(json) {
    var h = { accept: 'application/json', 'x-csrf-token': token };
    if (json) h['content-type'] = 'application/json';
    return h;
  }
  function add(select, value, label) {
    var o = document.createElement('option'); o.value = value; o.textContent = label; select.appendChild(o);
  }
  function languages() {
    var select = form.elements.language; var name = form.elements.template.value;
    while (select.options.length > 1) select.remove(1);
    templates.filter(function (t) { return t.name === name; }).forEach(function (t) { add(select, t.language, t.language); });
    if (select.options.length > 1) select.selectedIndex = 1;
  }
  // A refusal is said, not swallowed: an empty list would look like an account without templates.
  fetch('/api/v1/templates', { headers: headers(false), credentials: 'same-origin' }).then(function (r) {
    if (r.ok) return r.json();
    status.textContent = 'The templates could not be read (HTTP ' + r.status + ').';
    return [];
  })
    .then(function (body) {
      templates = Array.isArray(body) ? body : body.templates || body.data || [];
      var names = [];
      templates.forEach(function (t) { if (names.indexOf(t.name) < 0) names.push(t.name); });
      names.sort().forEach(function (n) { add(form.elements.template, n, n); });
    }, function () { /* the same template stays possible */ });
  form.elements.template.addEventListener('change', languages);
  function show(answerStatus, body) {
    while (problems.firstChild) problems.removeChild(problems.firstChild);
    var box = document.createElement('div'); box.className = 'error'; box.setAttribute('role', 'alert');
    var p = document.createElement('p');
    p.textContent = ((body && body.code) ? body.code + ': ' : '') + ((body && body.detail) || 'refused') + ' (HTTP ' + answerStatus + ')';
    box.appendChild(p);
    var list = document.createElement('ul');
    ((body && body.problems) || []).forEach(function (x) {
      var li = document.createElement('li');
      li.textContent = (x.code || '') + ' ' + (x.detail || '') + (x.field ? ' (field ' + x.field + ')' : '');
      list.appendChild(li);
    });
    if (list.firstChild) box.appendChild(list);
    problems.appendChild(box);
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var body = { status: form.elements.status.value };
    var after = form.elements.after.value.trim();
    if (after) body.after = after;
    // The same message with the columns that filled it; another template by name (its variables from same-named columns).
    var same = form.getAttribute('data-same');
    if (form.elements.template.value) { body.template = form.elements.template.value; body.language = form.elements.language.value; }
    else if (same) Object.assign(body, JSON.parse(same));
    status.textContent = 'Creating…';
    fetch('/api/v1/campaigns/' + encodeURIComponent(source) + '/retarget', {
      method: 'POST', headers: headers(true), body: JSON.stringify(body), credentials: 'same-origin'
    }).then(function (r) {
      return r.text().then(function (text) {
        var parsed = null; try { parsed = JSON.parse(text); } catch (e) { parsed = { detail: text }; }
        if (r.ok && parsed && parsed.id) { window.location.assign('/campaigns/' + encodeURIComponent(parsed.id)); return; }
        status.textContent = ''; show(r.status, parsed);
      });
    }, function () { status.textContent = 'The service did not answer.'; });
  });
})();
`;
