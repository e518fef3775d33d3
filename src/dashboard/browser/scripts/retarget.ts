/**
 * /dashboard/retarget.js, the Retarget form's script (src/dashboard/retarget-form.ts): fills the
 * template choices from `GET /api/v1/templates`, posts the form as JSON to the API with the
 * page's CSRF token and opens the new campaign's page; a refusal shows every problem.
 */
import type { CampaignFlags } from '../../../campaigns/spec/campaign-flags.js';
import type { RetargetStatus } from '../../../campaigns/retarget/retarget-rule.js';
import type { SameMessage } from '../../retarget-form.js';
import { callApi, listOf } from '../api-client.js';
import type { ProblemDocument } from '../api-answers.js';
import { clear, el } from '../dom.js';
import type { TemplateInput } from '../template-model.js';

/** What `POST /api/v1/campaigns/{id}/retarget` takes: the rows, and the same message or another template (`campaign retarget`'s flags). */
type RetargetBody = { status: RetargetStatus; after?: string } & (Partial<SameMessage> | Pick<CampaignFlags, 'template' | 'language'>);

interface RetargetFields extends HTMLFormControlsCollection {
  status: HTMLSelectElement;
  after: HTMLInputElement;
  template: HTMLSelectElement;
  language: HTMLSelectElement;
}

function add(select: HTMLSelectElement, value: string, label: string): void {
  select.appendChild(el('option', { value }, [label]));
}

/** A refusal: its code and detail, then every problem it lists (textContent only). */
function show(problems: HTMLElement, status: number, body: ProblemDocument | null): void {
  clear(problems);
  const title = `${body?.code ? `${body.code}: ` : ''}${body?.detail || 'refused'} (HTTP ${status})`;
  const items = (body?.problems ?? []).map((x) =>
    el('li', {}, [`${x.code || ''} ${x.detail || ''}${x.field ? ` (field ${x.field})` : ''}`]),
  );
  problems.appendChild(el('div', { class: 'error', role: 'alert' }, [el('p', {}, [title]), items.length > 0 && el('ul', {}, items)]));
}

function start(form: HTMLFormElement, status: HTMLElement, problems: HTMLElement): void {
  const token = form.getAttribute('data-csrf-token') ?? '';
  const source = form.getAttribute('data-source') ?? '';
  const fields = form.elements as RetargetFields;
  let templates: TemplateInput[] = [];

  function languages(): void {
    const select = fields.language;
    while (select.options.length > 1) select.remove(1);
    for (const t of templates) if (t.name === fields.template.value) add(select, t.language, t.language);
    if (select.options.length > 1) select.selectedIndex = 1;
  }

  // A refusal is said, not swallowed: an empty list would look like an account without templates.
  callApi('/api/v1/templates', token).then(
    (answer) => {
      if (!answer.ok) status.textContent = `The templates could not be read (HTTP ${answer.status}).`;
      templates = answer.ok ? listOf<TemplateInput>(answer.body, 'templates') : [];
      for (const name of [...new Set(templates.map((t) => t.name))].sort()) add(fields.template, name, name);
    },
    () => undefined, // the same message stays possible
  );
  fields.template.addEventListener('change', languages);

  async function retarget(): Promise<void> {
    const after = fields.after.value.trim();
    // The same message with the columns that filled it; another template by name (its variables from same-named columns).
    const same = form.getAttribute('data-same');
    const message = fields.template.value
      ? { template: fields.template.value, language: fields.language.value }
      : same
        ? (JSON.parse(same) as SameMessage)
        : {};
    const body: RetargetBody = { status: fields.status.value as RetargetStatus, ...(after ? { after } : {}), ...message };
    status.textContent = 'Creating…';
    const path = `/api/v1/campaigns/${encodeURIComponent(source)}/retarget`;
    const answer = await callApi(path, token, { method: 'POST', body: JSON.stringify(body), json: true });
    const parsed = (typeof answer.body === 'object' ? answer.body : { detail: answer.body }) as (ProblemDocument & { id?: string }) | null;
    if (answer.ok && parsed?.id) return window.location.assign(`/campaigns/${encodeURIComponent(parsed.id)}`);
    status.textContent = '';
    show(problems, answer.status, parsed);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    retarget().catch(() => {
      status.textContent = 'The service did not answer.';
    });
  });
}

const form = document.getElementById('retarget');
const status = form?.querySelector<HTMLElement>('[data-retarget-status]');
const problems = document.getElementById('retarget-problems');
if (form instanceof HTMLFormElement && status && problems) start(form, status, problems);
