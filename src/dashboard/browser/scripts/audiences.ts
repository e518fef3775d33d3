/**
 * /dashboard/audiences.js, the Audiences pages' script (src/dashboard/audiences-page.ts,
 * audiences-detail-page.ts): fills each audience's figures that take a read of every contact
 * from `GET /api/v1/audiences/{name}`, sends the import form to `PUT /api/v1/audiences/{name}`,
 * and downloads the export (the API's CSV, which a plain link could not fetch: the API takes a
 * page's requests only with its CSRF token). Values are written with textContent only.
 */
import { audienceApiPath, showImportOutcome, type AudienceDetailAnswer, type ImportAnswer } from '../audience-answers.js';
import { callApi } from '../api-client.js';
import { byId, clear } from '../dom.js';
import { showProblems } from '../problem-list.js';

/** The figures of one audience, into the cells of `scope` (`data-stat`, and `data-fill` by attribute index). */
async function fillFigures(scope: HTMLElement, token: string): Promise<void> {
  const name = scope.getAttribute('data-audience') ?? '';
  const portfolio = scope.getAttribute('data-portfolio') ?? '';
  const answer = await callApi(audienceApiPath(name, portfolio), token);
  const cells = [...scope.querySelectorAll<HTMLElement>('[data-stat], [data-fill]')];
  if (!answer.ok) {
    for (const cell of cells) cell.textContent = '?';
    return;
  }
  const detail = answer.body as AudienceDetailAnswer;
  for (const cell of cells) {
    const stat = cell.getAttribute('data-stat') as keyof AudienceDetailAnswer | null;
    const fill = cell.getAttribute('data-fill');
    const value = stat !== null ? detail[stat] : detail.filled[detail.columns[Number(fill)] ?? ''];
    cell.textContent = typeof value === 'number' ? value.toLocaleString('en-US') : '?';
  }
}

async function importFile(form: HTMLFormElement, token: string): Promise<void> {
  const problems = byId('ai-problems');
  const status = byId('ai-status');
  const outcome = byId('ai-outcome');
  const name = byId<HTMLInputElement>('ai-name').value.trim();
  const file = byId<HTMLInputElement>('ai-file').files?.[0];
  clear(problems);
  outcome.hidden = true;
  if (name === '' || file === undefined) return showProblems(problems, 0, { detail: 'Give the audience a name and choose a CSV file.' });
  const query = new URLSearchParams();
  const portfolio = byId<HTMLInputElement>('ai-portfolio').value.trim();
  const phoneColumn = byId<HTMLInputElement>('ai-phone-column').value.trim();
  if (portfolio !== '') query.set('portfolio', portfolio);
  if (phoneColumn !== '') query.set('phoneColumn', phoneColumn);
  if (byId<HTMLInputElement>('ai-replace').checked) query.set('replace', 'true');
  const data = new FormData();
  data.append('file', file, file.name);
  const submit = byId<HTMLButtonElement>('ai-submit');
  submit.disabled = true;
  status.textContent = 'Importing…';
  try {
    const answer = await callApi(`/api/v1/audiences/${encodeURIComponent(name)}?${query.toString()}`, token, { method: 'PUT', body: data });
    status.textContent = '';
    if (!answer.ok) return showProblems(problems, answer.status, answer.body);
    showImportOutcome(outcome, answer.body as ImportAnswer);
    form.reset();
  } catch {
    status.textContent = 'The service did not answer.';
  } finally {
    submit.disabled = false;
  }
}

/** The export as a file the browser saves: fetched with the page's token, then handed over as a blob. */
async function download(scope: HTMLElement, token: string): Promise<void> {
  const name = scope.getAttribute('data-audience') ?? '';
  const portfolio = scope.getAttribute('data-portfolio') ?? '';
  const status = byId('audience-status');
  status.textContent = 'Exporting…';
  const response = await fetch(audienceApiPath(name, portfolio, '/export'), {
    headers: { 'x-csrf-token': token },
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (!response.ok) {
    status.textContent = `The export failed (HTTP ${response.status}).`;
    return;
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = `${name}.csv`;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
  status.textContent = '';
}

const list = document.getElementById('audiences');
const importForm = document.getElementById('audience-import');
const detail = document.getElementById('audience');
if (list !== null) {
  const token = list.getAttribute('data-csrf-token') ?? '';
  for (const row of list.querySelectorAll<HTMLElement>('tr[data-audience]')) void fillFigures(row, token);
}
if (importForm instanceof HTMLFormElement) {
  const token = importForm.getAttribute('data-csrf-token') ?? '';
  importForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void importFile(importForm, token);
  });
}
if (detail !== null) {
  const token = detail.getAttribute('data-csrf-token') ?? '';
  void fillFigures(detail, token);
  byId('audience-export').addEventListener('click', () => void download(detail, token));
}
