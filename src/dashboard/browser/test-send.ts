import { byId, clear, el } from './dom.js';
import { missingRecipients, postCampaign } from './dry-run-submit.js';
import type { NewCampaignForm } from './new-campaign-form.js';
import { specOf } from './posted-spec.js';
import { showProblems } from './problem-list.js';

/**
 * "Send a test": the page's campaign, as it is, with `testTo` (`campaign send --test-to`): the
 * first rows' messages go to the numbers given, one row each, as a test campaign of its own,
 * whose page is linked when it is created. The numbers are asked for (E.164, comma-separated).
 */
export async function sendTest(page: NewCampaignForm, token: string): Promise<void> {
  const problems = byId('nc-problems');
  const status = byId('nc-status');
  const missing = missingRecipients(page);
  if (missing !== undefined) return showProblems(problems, 0, { detail: missing });
  const typed = window.prompt('Send the test to which numbers? E.164, comma-separated (e.g. +4915112345678, +4915187654321)');
  if (typed === null) return;
  const testTo = typed
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (testTo.length === 0) return showProblems(problems, 0, { detail: 'Give at least one test number.' });
  clear(problems);
  clear(status);
  status.textContent = 'Sending the test…';
  const file = page.recipients() === 'audience' ? null : page.state.file;
  const button = byId<HTMLButtonElement>('nc-test');
  button.disabled = true;
  try {
    const answer = await postCampaign(token, { ...specOf(page.choice()), testTo }, file, false);
    status.textContent = '';
    if (!answer.ok) return showProblems(problems, answer.status, answer.body);
    const id = (answer.body as { id?: string | null }).id ?? '';
    status.append('Test campaign ', el('a', { href: `/campaigns/${encodeURIComponent(id)}`, id: 'nc-test-link' }, [id]), ' created.');
  } catch {
    status.textContent = 'The service did not answer.';
  } finally {
    button.disabled = false;
  }
}
