/**
 * /dashboard/new-campaign.js, the New campaign page's script (src/dashboard/new-campaign-page.ts):
 * loads the numbers and templates from the API, reads the chosen file's first rows as the
 * service will read them, offers a column for each slot of the template (suggested from their
 * names), draws the preview of each kind (carousel cards, coupon codes, an offer's countdown),
 * and posts the file and spec to the API (dry run, then Confirm). Confirm is offered only for
 * the choices the last dry run checked. The recipients may be a stored audience instead (its
 * attributes are the columns offered; the spec goes alone, with `audience` and `where`), and
 * "Send a test" posts the same campaign with `testTo`.
 */
import { readCsvHead } from '../../../csv/csv-head.js';
import { delimiterLabel } from '../../../csv/delimiter.js';
import { guessPhoneColumn } from '../column-suggestions.js';
import { byId, clear } from '../dom.js';
import { submit } from '../dry-run-submit.js';
import { NewCampaignForm, option } from '../new-campaign-form.js';
import { loadError, loadNumbers, loadTemplates } from '../new-campaign-loads.js';
import { tickCountdowns } from '../countdown-ticker.js';
import { chooseAudience, loadAudiences, switchRecipients } from '../audience-recipients.js';
import { sendTest } from '../test-send.js';

/** Enough of the file for its header and a few hundred rows. */
const HEAD_BYTES = 512 * 1024;
/** Rows read from the head: the preview shows the first that can be sent, past refused or half-filled ones. */
const HEAD_ROWS = 200;

/** The chosen file's head: its columns offered and suggested, the preview redrawn; a dry run must check the new file. */
async function readFile(page: NewCampaignForm): Promise<void> {
  const { state } = page;
  const file = byId<HTMLInputElement>('nc-file').files?.[0];
  state.file = file ?? null;
  state.refused = [];
  state.checked = null;
  if (!file) {
    state.head = null;
    return page.suggest();
  }
  const head = readCsvHead(new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer()), HEAD_ROWS, file.size <= HEAD_BYTES);
  state.head = head;
  state.suggestedPhone = guessPhoneColumn(head.header);
  byId<HTMLSelectElement>('nc-phone').value = '';
  byId('nc-file-summary').textContent =
    `${file.name}: ${head.header.length} columns (${head.header.join(', ')}), ` +
    `delimiter ${delimiterLabel(head.delimiter)}, ${file.size} bytes`;
  page.suggest();
}

function start(form: HTMLFormElement): void {
  const page = new NewCampaignForm(form);
  const { state } = page;
  const token = form.getAttribute('data-csrf-token') ?? '';
  const exampleCard = form.getAttribute('data-example-rate-card') ?? '';

  function chooseLanguage(): void {
    const name = byId<HTMLSelectElement>('nc-template').value;
    const language = byId<HTMLSelectElement>('nc-language').value;
    const m = state.templates.find((t) => t.name === name && t.language === language) ?? null;
    state.model = m;
    byId('nc-template-note').textContent = m
      ? `${m.category} · ${m.kind.replace(/_/g, ' ')} · ${m.status} · ${m.positional ? 'positional' : 'named'} variables`
      : '';
    page.suggest();
  }

  function chooseTemplate(): void {
    const name = byId<HTMLSelectElement>('nc-template').value;
    const select = byId<HTMLSelectElement>('nc-language');
    clear(select);
    state.templates
      .filter((t) => t.name === name)
      .forEach((t, i) => {
        const label = t.language + (t.status && t.status !== 'APPROVED' ? ` (${t.status})` : '');
        select.appendChild(option(t.language, label, i === 0));
      });
    chooseLanguage();
  }

  /** A change of any field; the file, template and language have their own listeners, which redraw. */
  function onChange(event: Event): void {
    const t = event.target as HTMLInputElement | HTMLSelectElement;
    if (t.name === 'recipients') return void switchRecipients(page, token);
    if (t.id === 'nc-audience') return void chooseAudience(page, token);
    if (t.id === 'nc-number' && page.recipients() === 'audience') void loadAudiences(page, token);
    if (t.name === 'kind') {
      byId('nc-template-fields').hidden = page.kind() !== 'template';
      byId('nc-text-fields').hidden = page.kind() !== 'text';
      page.drawMapping();
      page.changed();
      return;
    }
    const slot = t.getAttribute('data-slot');
    if (slot && slot !== 'phone') state.mapping[slot] = t.value || null;
    const note = slot ? (form.querySelector(`[data-note="${slot}"]`) ?? (slot === 'phone' ? byId('nc-phone-note') : null)) : null;
    if (slot && note) note.textContent = page.noteOf(slot);
    if (t.id !== 'nc-file' && t.id !== 'nc-template' && t.id !== 'nc-language') page.changed();
  }

  form.addEventListener('submit', (e) => e.preventDefault());
  byId('nc-file').addEventListener('change', () => void readFile(page));
  byId('nc-template').addEventListener('change', chooseTemplate);
  byId('nc-language').addEventListener('change', chooseLanguage);
  form.addEventListener('change', onChange);
  form.addEventListener('input', (e) => {
    const t = e.target as HTMLInputElement;
    if (t.tagName !== 'SELECT' && t.type !== 'file') page.changed();
  });
  // A limited-time offer's countdown runs in the preview as it would on the phone.
  window.setInterval(() => tickCountdowns(byId('nc-preview'), Date.now()), 1000);
  byId('nc-check').addEventListener('click', () => void submit(page, token, true, exampleCard));
  byId('nc-confirm').addEventListener('click', () => void submit(page, token, false, exampleCard));
  byId('nc-test').addEventListener('click', () => void sendTest(page, token));
  const templates = loadTemplates(token).then((list) => {
    state.templates = list;
  });
  Promise.all([loadNumbers(token), templates]).then(
    () => form.setAttribute('data-ready', '1'),
    () => loadError('The service did not answer: reload the page.'),
  );
}

const form = document.getElementById('new-campaign');
if (form instanceof HTMLFormElement) start(form);
