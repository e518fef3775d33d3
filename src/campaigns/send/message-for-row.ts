import type { OutboundMessage, TemplateMessage, TextParameter, UrlButtonParameter } from '../../cloud-api/outbound-message.js';
import type { CampaignDefinition } from '../campaign.js';
import { valueProblem } from '../parameter-rules.js';
import { renderedTooLong } from '../ingest/row-check.js';
import type { RowToSend } from '../send-job.js';

/**
 * The template message for one row, or why the row cannot be a valid send. The worker's
 * guard: the producer already checked the row, but a row may come from an older version or
 * a hand edit in Redis, and a malformed request must never reach Meta.
 */
export function messageForRow(
  definition: CampaignDefinition,
  job: RowToSend,
): { ok: true; message: OutboundMessage } | { ok: false; detail: string } {
  const { plan } = definition;
  if (job.values.length !== plan.slots.length) {
    return { ok: false, detail: `row has ${job.values.length} values, template ${plan.name} takes ${plan.slots.length}` };
  }
  const named = plan.parameterFormat === 'NAMED';
  const body: TextParameter[] = [];
  const urlButtons = new Map<number, UrlButtonParameter>();
  let headerText: TextParameter | undefined;
  for (const [i, slot] of plan.slots.entries()) {
    const text = job.values[i] ?? '';
    const problem = valueProblem(text);
    if (problem !== undefined) return { ok: false, detail: `value for {{${slot.variable}}} breaks Meta's rules (${problem})` };
    const parameter: TextParameter = named ? { text, name: slot.variable } : { text };
    if (slot.component === 'body') body.push(parameter);
    else if (slot.component === 'header') headerText = parameter;
    else urlButtons.set(slot.buttonIndex ?? 0, { index: slot.buttonIndex ?? 0, ...parameter });
  }
  const tooLong = renderedTooLong(plan, job.values);
  if (tooLong !== undefined) return { ok: false, detail: tooLong.detail };

  const message: TemplateMessage = {
    kind: 'template',
    to: job.to,
    name: plan.name,
    language: plan.language,
    body,
    // Lets a status webhook find the row even without the wamid index.
    callbackData: `${job.campaignId}/${job.row}`,
  };
  if (headerText !== undefined) message.header = { type: 'text', ...headerText };
  if (plan.headerMedia !== undefined) {
    if (job.headerLink === undefined) return { ok: false, detail: `template ${plan.name} needs a header ${plan.headerMedia.format} link` };
    message.header = { type: plan.headerMedia.format, link: job.headerLink };
  }
  if (urlButtons.size > 0) message.urlButtons = [...urlButtons.values()];
  return { ok: true, message };
}
