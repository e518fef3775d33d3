import type { CampaignMessage } from '../campaigns/campaign.js';
import type { CampaignView } from './campaign-view.js';
import { html, type SafeHtml } from './html.js';

export const RETARGET_SCRIPT_PATH = '/dashboard/retarget.js';

/** `campaign retarget --status` values, with what each takes. */
const RETARGET_STATUSES = [
  ['failed', 'its failed rows'],
  ['delivered-not-read', 'rows delivered but not read'],
  ['not-replied', 'rows sent, delivered or read with no reply'],
  ['clicked', 'rows whose tracked link was clicked'],
  ['not-clicked', 'rows sent, delivered or read with no click on their link'],
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
      /** Each slot the source filled, by its name, from the column that filled it. */
      param?: Record<string, string>;
      headerImageColumn?: string;
      languageColumn?: string;
      /** The source tracked clicks: so does the new campaign, to the same destinations. */
      trackClicks?: true;
      clickUrlColumn?: string;
    }
  | { text: string; previewUrl: boolean };

/** `clicks`: the source's tracked button (its definition's `clicks`), whose token is not a column the new campaign maps. */
export function sameMessageOf(message: CampaignMessage, clicks?: { slot: string; column: string }): SameMessage {
  if (message.kind === 'text') return { text: message.text.body, previewUrl: message.text.previewUrl };
  const { plan } = message;
  const same: SameMessage = { template: plan.name, language: plan.language };
  if (clicks !== undefined) Object.assign(same, { trackClicks: true, clickUrlColumn: clicks.column });
  const param: Record<string, string> = {};
  for (const slot of plan.slots) {
    if (slot.kind === 'language') same.languageColumn = slot.column;
    // A slot filled from another (an authentication code's button) is not mapped itself; nor is the tracked button.
    else if (slot.sameAs === undefined && slot.name !== clicks?.slot) param[slot.name] = slot.column;
  }
  if (Object.keys(param).length > 0) same.param = param;
  if (plan.headerMedia !== undefined) same.headerImageColumn = plan.headerMedia.column;
  return same;
}

/**
 * A finished (completed or cancelled) campaign's Retarget form: a new campaign of the chosen
 * rows, with the same message (`same`) or another template, through
 * `POST /api/v1/campaigns/{id}/retarget` (what `campaign retarget` runs), sent by its script
 * (src/dashboard/browser/scripts/retarget.ts) with the page's CSRF token; nothing for a campaign still running.
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
