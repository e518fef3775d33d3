import type { StoredAudience } from '../redis/audiences/redis-audiences.js';
import { count, time } from './display-format.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';

/** Where the Audiences pages are served, and their script (src/dashboard/browser/scripts/audiences.ts). */
export const AUDIENCES_PATH = '/audiences';
export const AUDIENCES_SCRIPT_PATH = '/dashboard/audiences.js';

/** An audience as the list shows it: what its meta holds, and its contacts. */
export type ListedAudience = StoredAudience & { contacts: number };

/** One portfolio's audiences, by name. */
export interface PortfolioAudiences {
  portfolio: string;
  audiences: ListedAudience[];
}

/** `/audiences/<portfolio>/<name>`: both are of URL-safe forms (a portfolio's name, AUDIENCE_NAME), encoded all the same. */
export function audiencePath(portfolio: string, name: string): string {
  return `${AUDIENCES_PATH}/${encodeURIComponent(portfolio)}/${encodeURIComponent(name)}`;
}

/**
 * `GET /audiences`: every portfolio's audiences (name, contacts, attributes, last import), and
 * a form to import a CSV into one, which the page's script sends to `PUT /api/v1/audiences/{name}`
 * with the page's CSRF token. How many contacts are opted out or consented takes a read of
 * every contact: the script asks the API for each audience after the page is shown
 * (`data-audience`), so a long list is not held up by its largest audience.
 */
export function audiencesPage(portfolios: readonly PortfolioAudiences[], csrfToken: string): SafeHtml {
  const any = portfolios.some((p) => p.audiences.length > 0);
  return page({
    title: 'Audiences',
    body: html`<h1>Audiences</h1>
<p class="sub">Contact lists of a business portfolio, imported from CSV files; a campaign can send to one, or to a segment of it
(<a href="/campaigns/new">New campaign</a>).</p>
${
  any
    ? html`<table class="campaigns audiences" id="audiences" data-csrf-token="${csrfToken}">
<thead><tr><th>Portfolio</th><th>Audience</th><th>Contacts</th><th>Attributes</th><th>Updated</th>
<th>Opted out</th><th>With consent</th></tr></thead>
<tbody>
${portfolios.flatMap((p) => p.audiences.map((a) => audienceRow(p.portfolio, a)))}
</tbody>
</table>`
    : html`<p class="empty" id="audiences" data-csrf-token="${csrfToken}">No audience yet: import a CSV below.</p>`
}
${importForm(csrfToken)}
<script src="${AUDIENCES_SCRIPT_PATH}" defer></script>`,
  });
}

function audienceRow(portfolio: string, audience: ListedAudience): SafeHtml {
  const stat = (field: string) => html`<td class="num" data-stat="${field}">…</td>`;
  return html`<tr data-audience="${audience.name}" data-portfolio="${portfolio}">
<td>${portfolio}</td>
<td><a href="${audiencePath(portfolio, audience.name)}">${audience.name}</a></td>
<td class="num">${count(audience.contacts)}</td>
<td>${audience.columns.join(', ')}</td>
<td>${time(audience.updatedAt)}</td>
${stat('optedOut')}${stat('withConsent')}
</tr>`;
}

/** The import form: the script sends it (a page's form cannot PUT, nor carry the API's header). */
function importForm(csrfToken: string): SafeHtml {
  return html`<form id="audience-import" class="new-campaign" data-csrf-token="${csrfToken}" novalidate>
<fieldset>
<legend>Import a CSV into an audience</legend>
<label>Audience <input type="text" id="ai-name" name="name" required maxlength="64" pattern="[A-Za-z0-9][A-Za-z0-9_.\\-]{0,63}"
 placeholder="weekly-offer"></label>
<label>Portfolio <input type="text" id="ai-portfolio" name="portfolio" placeholder="the default number's"></label><br>
<label>CSV file <input type="file" id="ai-file" name="file" accept=".csv,.txt,text/csv,text/plain" required></label>
<label>Phone column <input type="text" id="ai-phone-column" name="phoneColumn" placeholder="phone"></label><br>
<label><input type="checkbox" id="ai-replace" name="replace"> Replace: the audience becomes exactly this file</label>
<p class="sub">A new name creates the audience; an existing one is updated (contacts added or their columns replaced).</p>
</fieldset>
<div class="controls">
<button type="submit" id="ai-submit">Import</button>
<span class="sub" id="ai-status" role="status"></span>
</div>
<div id="ai-problems"></div>
<section id="ai-outcome" hidden></section>
</form>`;
}
