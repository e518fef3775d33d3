import type { AccountError } from '../campaigns/settle/account-errors.js';
import { haltsNumber } from '../campaigns/settle/account-errors.js';
import { clip, time } from './display-format.js';
import { html, type SafeHtml } from './html.js';

/** How long an account error stays on the campaigns page: long enough to be seen the next working day. */
export const ACCOUNT_ERRORS_SHOWN_MS = 7 * 86_400_000;

/**
 * The campaigns page's account errors: what Meta reported for a number rather than for a
 * message (a change's `errors[]`), newest first, the last week's. A halting code paused the
 * number's campaigns (their state says why); `campaign resume` sends again once it is fixed.
 * Nothing when there are none.
 */
export function accountErrorsSection(errors: readonly AccountError[], now: number): SafeHtml | undefined {
  const shown = errors.filter((e) => now - e.at < ACCOUNT_ERRORS_SHOWN_MS);
  if (shown.length === 0) return undefined;
  const rows = shown.map(
    (e) => html`<tr data-code="${e.code}">
<td class="n">${time(e.at)}</td>
<td>${e.phoneNumberId === '' ? '?' : e.phoneNumberId}</td>
<td class="n">${e.code}</td>
<td class="detail">${clip(e.title, 200)}<div class="sub">${clip(e.details, 500)}</div></td>
<td>${haltsNumber(e.code) ? "paused this number's campaigns" : 'recorded'}</td>
</tr>`,
  );
  return html`<h2>Account errors reported by Meta</h2>
<table class="account-errors">
<thead><tr><th>When</th><th>Phone number</th><th>Code</th><th>Error</th><th>What it did</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<p class="footnote">Errors Meta reported for a phone number, an app or the account rather than for a message (webhook <code>errors</code>).
A code that stops every send paused the number's campaigns: fix the cause (see docs/errors.md for Meta's codes), then
<code>campaign resume ID</code>.</p>`;
}
