import { basename } from 'node:path';
import { defaultRateCardFile } from '../pricing/rate-card.js';
import { html, type SafeHtml } from './html.js';
import { PAGE_HEADERS, page } from './layout.js';

/** Where the page is served, and its script (src/dashboard/browser/scripts/new-campaign.ts). */
export const NEW_CAMPAIGN_PATH = '/campaigns/new';
export const NEW_CAMPAIGN_SCRIPT_PATH = '/dashboard/new-campaign.js';

const PRIORITIES = ['normal', 'high', 'low'] as const;

/**
 * The pages' headers, but for images and videos from http(s) links: the preview shows a row's
 * media header and carousel cards from the links of the operator's own file, as the phone will.
 * Scripts, styles and connections stay this host's only; no referrer goes with the requests.
 */
export const NEW_CAMPAIGN_HEADERS: Readonly<Record<string, string>> = {
  ...PAGE_HEADERS,
  'content-security-policy': (PAGE_HEADERS['content-security-policy'] ?? '').replace(
    /img-src [^;]*;/,
    "img-src 'self' https: http:; media-src https: http:;",
  ),
};

/** The file name of the rate card the package ships (an example, not Meta's rates), never its path on the server. */
const EXAMPLE_CARD = basename(defaultRateCardFile());

/** Who gets it: a CSV uploaded (read here for the columns and the preview), or a stored audience with a `where` filter. */
const RECIPIENTS = html`<fieldset>
<legend>1. The recipients</legend>
<div class="choice">
<label><input type="radio" name="recipients" value="file" checked> Upload a CSV</label>
<label><input type="radio" name="recipients" value="audience"> An audience</label>
</div>
<div id="nc-file-fields">
<label>CSV file <input type="file" id="nc-file" name="file" accept=".csv,.txt,text/csv,text/plain" required></label>
<p class="sub" id="nc-file-summary">One row per recipient, with a header line. Only its first rows are read here, for the preview.</p>
</div>
<div id="nc-audience-fields" hidden>
<label>Audience <select id="nc-audience" name="audience"><option value="">(choose the number first)</option></select></label>
<label>Only contacts where <input type="text" id="nc-where" name="where" size="50" maxlength="4000"
 placeholder='tier = "gold" and city in ("Berlin", "Hamburg")'></label>
<p class="sub" id="nc-audience-summary">Empty: every contact. Compare attributes with <code>=</code> <code>!=</code> <code>&lt;</code>
<code>&gt;</code>, <code>in (…)</code>, <code>contains</code>, <code>is empty</code>; combine with <code>and</code>, <code>or</code>,
<code>not</code> and parentheses (the grammar: docs/audiences.md). <a href="/audiences">Audiences</a></p>
</div>
</fieldset>`;

/**
 * `GET /campaigns/new`: a form the page's script drives. The file is read in the browser for
 * the column choices and the preview (only its first rows), then sent whole with the spec to
 * `POST /api/v1/campaigns`, first as a dry run (the plan, the refused rows), then for real.
 * The page's CSRF token (`data-csrf-token`) goes with every request to the API, in the
 * `X-CSRF-Token` header; the browser adds the basic auth it already sends. The cost's line says
 * when its rates are the example card the package ships: the form names that card's file.
 */
export function newCampaignPage(csrfToken: string): SafeHtml {
  return page({
    title: 'New campaign',
    body: html`<p class="crumbs"><a href="/">Campaigns</a> › New campaign</p>
<h1>New campaign</h1>
<form id="new-campaign" class="new-campaign" data-csrf-token="${csrfToken}" data-example-rate-card="${EXAMPLE_CARD}" novalidate>
<p class="error" id="nc-load-error" role="alert" hidden></p>
${RECIPIENTS}
<fieldset>
<legend>2. The message</legend>
<label>From number <select id="nc-number" name="phoneNumberId"><option value="">(loading…)</option></select></label>
<div class="choice">
<label><input type="radio" name="kind" value="template" checked> An approved template</label>
<label><input type="radio" name="kind" value="text"> A text (only to recipients who wrote in the last 24 h)</label>
</div>
<div id="nc-template-fields">
<label>Template <select id="nc-template" name="template"><option value="">(loading…)</option></select></label>
<label>Language <select id="nc-language" name="language"></select></label>
<p class="sub" id="nc-template-note"></p>
</div>
<div id="nc-text-fields" hidden>
<label>Text <textarea id="nc-text" name="text" rows="4" cols="60" placeholder="Hi {{first_name}}, …"></textarea></label>
<p class="sub">{{column}} is filled from the row's column of that name.</p>
</div>
</fieldset>
<fieldset>
<legend>3. The columns</legend>
<table class="mapping">
<thead><tr><th>Slot</th><th>Column of the file</th><th></th></tr></thead>
<tbody id="nc-mapping">
<tr><td>the recipient's phone number</td><td><select id="nc-phone" data-slot="phone"></select></td>
<td class="sub" id="nc-phone-note"></td></tr>
</tbody>
</table>
</fieldset>
<fieldset>
<legend>4. As WhatsApp shows it (the first five rows that can be sent)</legend>
<div id="nc-preview" class="previews"><p class="empty">Choose a file and a message.</p></div>
</fieldset>
<fieldset>
<legend>5. When and how</legend>
<label>Name <input type="text" id="nc-name" name="name" maxlength="100" placeholder="the file's name"></label>
<label>Start <input type="datetime-local" id="nc-at" name="at"></label>
<span class="sub">empty: at once; typed in this browser's time zone, the dry run answers in UTC</span><br>
<label>Send window <input type="text" id="nc-hours" name="hours" placeholder="09:00-20:00"></label>
<label>on days <input type="text" id="nc-days" name="days" placeholder="mon-fri"></label>
<span class="sub">each recipient's local time</span><br>
<label>Rows not sent expire after <input type="text" id="nc-valid-for" name="validFor" placeholder="48h"></label>
<label>or at <input type="datetime-local" id="nc-expires-at" name="expiresAt"></label><br>
<label>Priority <select id="nc-priority" name="priority">${PRIORITIES.map((p) => html`<option>${p}</option>`)}</select></label>
</fieldset>
<div class="controls">
<button type="button" id="nc-check">Check the file (dry run)</button>
<button type="button" id="nc-confirm" disabled>Confirm: create the campaign</button>
<button type="button" id="nc-test">Send a test…</button>
<span class="sub" id="nc-status" role="status"></span>
</div>
<div id="nc-problems"></div>
<section id="nc-plan" hidden></section>
</form>
<p class="footnote">The dry run reads the whole file (or the audience's segment) as <code>campaign send --dry-run</code> does and
queues nothing; Confirm sends the same file and choices as <code>campaign send</code>. Send a test sends the first rows' messages to
the numbers you give (<code>--test-to</code>), one row each, as a campaign of its own.</p>
<script src="${NEW_CAMPAIGN_SCRIPT_PATH}" defer></script>`,
  });
}
