import { CSRF_FIELD } from './csrf.js';
import { count, time } from './display-format.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { AUDIENCES_PATH, AUDIENCES_SCRIPT_PATH, audiencePath, type ListedAudience } from './audiences-page.js';

export interface AudienceDetailOptions {
  portfolio: string;
  audience: ListedAudience;
  csrfToken: string;
}

/**
 * `GET /audiences/<portfolio>/<name>`: the audience's attributes, its last import, an export
 * and a delete (asked first). How many contacts fill each attribute, and how many are opted
 * out, consented or known by user ID, take a read of every contact: the page's script asks
 * `GET /api/v1/audiences/{name}` for them (`data-fill`, `data-stat`). The export is the API's
 * CSV, fetched by the script with the page's token (a plain link cannot carry it).
 */
export function audienceDetailPage(options: AudienceDetailOptions): SafeHtml {
  const { portfolio, audience, csrfToken } = options;
  const last = audience.lastImport;
  const stat = (field: string, label: string) => html`<tr><th>${label}</th><td class="num" data-stat="${field}">…</td></tr>`;
  return page({
    title: `Audience ${audience.name}`,
    body: html`<p class="crumbs"><a href="${AUDIENCES_PATH}">Audiences</a> › ${portfolio} › ${audience.name}</p>
<h1>${audience.name}</h1>
<div id="audience" data-audience="${audience.name}" data-portfolio="${portfolio}" data-csrf-token="${csrfToken}">
<table class="figures">
<tr><th>Portfolio</th><td>${portfolio}</td></tr>
<tr><th>Contacts</th><td class="num">${count(audience.contacts)}</td></tr>
${stat('optedOut', 'Opted out')}${stat('withConsent', 'With an opt-in on record')}${stat('withUserId', 'With a user ID')}
<tr><th>Created</th><td>${time(audience.createdAt)}</td></tr>
<tr><th>Last import</th><td>${time(audience.updatedAt)} from ${audience.importedFrom}: ${count(last.read)} rows read,
${count(last.added)} added, ${count(last.updated)} updated, ${count(last.rejected)} rejected, ${count(last.duplicates)} duplicates</td></tr>
</table>
<h2>Attributes</h2>
${
  audience.columns.length === 0
    ? html`<p class="empty">No attribute: the files imported had only the phone column.</p>`
    : html`<table class="campaigns attributes">
<thead><tr><th>Attribute</th><th>Contacts with a value</th></tr></thead>
<tbody>${audience.columns.map((column, i) => html`<tr><td>${column}</td><td class="num" data-fill="${i}">…</td></tr>`)}</tbody>
</table>`
}
<div class="controls">
<button type="button" id="audience-export">Export as CSV</button>
<span class="sub" id="audience-status" role="status"></span>
</div>
</div>
<form method="post" action="${audiencePath(portfolio, audience.name)}/delete" class="controls"
 data-confirm="${`Delete audience ${audience.name} and its ${audience.contacts} contacts for good?`}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">
<button type="submit" class="danger">Delete the audience</button>
</form>
<script src="${AUDIENCES_SCRIPT_PATH}" defer></script>`,
  });
}

/** An audience the portfolio has none of (404). */
export function audienceNotFoundPage(portfolio: string, name: string): SafeHtml {
  return page({
    title: 'Not found',
    body: html`<h1>No audience ${name}</h1>
      <p>Portfolio ${portfolio} has no audience of this name. <a href="${AUDIENCES_PATH}">All audiences</a></p>`,
  });
}
