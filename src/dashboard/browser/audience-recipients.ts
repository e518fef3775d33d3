import { audienceApiPath, type AudienceDetailAnswer } from './audience-answers.js';
import { callApi, listOf } from './api-client.js';
import { byId, clear } from './dom.js';
import { option, type NewCampaignForm } from './new-campaign-form.js';

interface ListedAudience {
  name: string;
  contacts: number;
  columns: string[];
}

/** The number's portfolio's audiences (`GET /api/v1/audiences?phoneNumberId=`), offered in the select; the choice starts over. */
export async function loadAudiences(page: NewCampaignForm, token: string): Promise<void> {
  const number = byId<HTMLSelectElement>('nc-number').value;
  const select = byId<HTMLSelectElement>('nc-audience');
  const answer = await callApi(`/api/v1/audiences${number === '' ? '' : `?phoneNumberId=${encodeURIComponent(number)}`}`, token);
  clear(select);
  const audiences = answer.ok ? listOf<ListedAudience>(answer.body, 'audiences') : [];
  const none = answer.ok ? "(none in this number's portfolio)" : `(could not be read: HTTP ${answer.status})`;
  select.appendChild(option('', audiences.length === 0 ? none : '(choose an audience)', true));
  for (const a of audiences) select.appendChild(option(a.name, `${a.name} (${a.contacts.toLocaleString('en-US')} contacts)`, false));
  if (page.state.audience !== null) await chooseAudience(page, token);
}

/**
 * The audience chosen: its attributes (`GET /api/v1/audiences/{name}`) are the columns the
 * template's slots are filled from, as a file's header would be; it has no rows to preview.
 */
export async function chooseAudience(page: NewCampaignForm, token: string): Promise<void> {
  const { state } = page;
  const name = byId<HTMLSelectElement>('nc-audience').value;
  const summary = byId('nc-audience-summary');
  state.audience = name === '' ? null : name;
  state.checked = null;
  state.refused = [];
  if (state.audience === null) {
    state.head = null;
    return page.suggest();
  }
  const number = byId<HTMLSelectElement>('nc-number').value;
  const query = number === '' ? '' : `?phoneNumberId=${encodeURIComponent(number)}`;
  const answer = await callApi(`${audienceApiPath(name, '')}${query}`, token);
  if (!answer.ok) {
    state.head = null;
    summary.setAttribute('data-error', String(answer.status));
    page.suggest();
    return;
  }
  const detail = answer.body as AudienceDetailAnswer;
  state.head = { delimiter: ',', header: detail.columns, rows: [] };
  summary.removeAttribute('data-error');
  byId('nc-file-summary').textContent =
    `Audience ${detail.name}: ${detail.contacts.toLocaleString('en-US')} contacts, attributes ${detail.columns.join(', ')}` +
    ` (${detail.optedOut.toLocaleString('en-US')} opted out)`;
  page.suggest();
}

/** Switching between a file and an audience: the fields of the one chosen shown, the columns of its source offered. */
export async function switchRecipients(page: NewCampaignForm, token: string): Promise<void> {
  const audience = page.recipients() === 'audience';
  byId('nc-file-fields').hidden = audience;
  byId('nc-audience-fields').hidden = !audience;
  byId('nc-file-summary').textContent = '';
  page.state.checked = null;
  if (audience) return loadAudiences(page, token);
  page.state.audience = null;
  byId<HTMLInputElement>('nc-file').dispatchEvent(new Event('change'));
}
