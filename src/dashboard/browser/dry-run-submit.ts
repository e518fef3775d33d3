import { callApi, type ApiAnswer } from './api-client.js';
import type { SummaryAnswer } from './api-answers.js';
import { byId, clear } from './dom.js';
import { showPlan } from './dry-run-plan.js';
import type { NewCampaignForm } from './new-campaign-form.js';
import { specOf, type PostedSpec } from './posted-spec.js';
import { showProblems } from './problem-list.js';
import { rejectsByReason } from './rejects-by-reason.js';

/** Why the form cannot be sent yet (no file, or no audience chosen); undefined: it can. */
export function missingRecipients(page: NewCampaignForm): string | undefined {
  if (page.recipients() === 'audience') return page.state.audience ? undefined : 'Choose an audience first.';
  return page.state.file ? undefined : 'Choose a CSV file first.';
}

/**
 * `POST /api/v1/campaigns`: the spec with the file (multipart), or, to an audience, the spec
 * alone as JSON (the service writes the audience's segment as the file).
 */
export async function postCampaign(token: string, spec: PostedSpec, file: File | null, dryRun: boolean): Promise<ApiAnswer> {
  const path = `/api/v1/campaigns${dryRun ? '?dryRun=true' : ''}`;
  if (file === null) return callApi(path, token, { method: 'POST', body: JSON.stringify(spec), json: true });
  const data = new FormData();
  data.append('spec', JSON.stringify(spec));
  data.append('file', file, file.name);
  return callApi(path, token, { method: 'POST', body: data });
}

/** Refused rows shown as examples under each reason. */
const EXAMPLES = 3;

/**
 * Sends the file whole with the spec to `POST /api/v1/campaigns`: as a dry run (the plan and
 * the refused rows are shown, and Confirm is offered for these choices if any row would be sent),
 * or for real (the new campaign's page opens). `exampleCard`: the shipped rate card's file name.
 */
export async function submit(page: NewCampaignForm, token: string, dryRun: boolean, exampleCard: string): Promise<void> {
  const { state } = page;
  const problems = byId('nc-problems');
  const status = byId('nc-status');
  const check = byId<HTMLButtonElement>('nc-check');
  const confirm = byId<HTMLButtonElement>('nc-confirm');
  const plan = byId('nc-plan');
  const missing = missingRecipients(page);
  if (missing !== undefined) return showProblems(problems, 0, { detail: missing });
  const file = page.recipients() === 'audience' ? null : state.file;
  const spec = specOf(page.choice());
  clear(problems);
  status.textContent = dryRun ? 'Checking the recipients…' : 'Creating the campaign…';
  check.disabled = true;
  confirm.disabled = true;
  let answer: ApiAnswer;
  try {
    answer = await postCampaign(token, spec, file, dryRun);
  } catch {
    check.disabled = false;
    status.textContent = 'The service did not answer.';
    return;
  }
  check.disabled = false;
  if (!answer.ok) {
    status.textContent = '';
    state.checked = null;
    plan.hidden = true;
    return showProblems(problems, answer.status, answer.body);
  }
  const summary = answer.body as SummaryAnswer;
  if (!dryRun) return window.location.assign(`/campaigns/${encodeURIComponent(summary.id ?? '')}`);
  const rejects = summary.rejects ?? [];
  state.refused = rejects.map((r) => r.row);
  showPlan(plan, summary, rejectsByReason(rejects, EXAMPLES), exampleCard);
  state.checked = { file, spec: JSON.stringify(spec) };
  page.changed();
  confirm.disabled = !(summary.valid > 0);
  status.textContent = summary.valid > 0 ? 'Checked: Confirm creates it.' : 'No row would be sent.';
}
