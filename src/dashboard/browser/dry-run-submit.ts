import { callApi, type ApiAnswer } from './api-client.js';
import type { SummaryAnswer } from './api-answers.js';
import { byId, clear } from './dom.js';
import { showPlan } from './dry-run-plan.js';
import type { NewCampaignForm } from './new-campaign-form.js';
import { specOf } from './posted-spec.js';
import { showProblems } from './problem-list.js';
import { rejectsByReason } from './rejects-by-reason.js';

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
  if (!state.file) return showProblems(problems, 0, { detail: 'Choose a CSV file first.' });
  const file = state.file;
  const spec = specOf(page.choice());
  const data = new FormData();
  data.append('spec', JSON.stringify(spec));
  data.append('file', file, file.name);
  clear(problems);
  status.textContent = dryRun ? 'Checking the file…' : 'Creating the campaign…';
  check.disabled = true;
  confirm.disabled = true;
  let answer: ApiAnswer;
  try {
    answer = await callApi(`/api/v1/campaigns${dryRun ? '?dryRun=true' : ''}`, token, { method: 'POST', body: data });
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
