import type { OutboundMessage, TemplateMessage, TextParameter, UrlButtonParameter } from '../../cloud-api/outbound-message.js';
import { campaignMessage, type CampaignDefinition } from '../campaign.js';
import { textValueProblem, valueProblem } from '../parameter-rules.js';
import { renderedTooLong } from '../ingest/row-check.js';
import type { RowToSend } from '../send-job.js';
import type { SendPlan } from '../send-plan.js';
import { fillText, textTooLong, type TextPlan } from '../text-plan.js';

type Built = { ok: true; message: OutboundMessage } | { ok: false; detail: string };

/**
 * The message for one row (the campaign's template, or its text), or why the row cannot be a
 * valid send. The worker's guard: the producer already checked the row, but a row may come
 * from an older version or a hand edit in Redis, and a malformed request must never reach Meta.
 */
export function messageForRow(definition: CampaignDefinition, job: RowToSend): Built {
  const message = campaignMessage(definition);
  return message.kind === 'text' ? textForRow(message.text, job) : templateForRow(message.plan, job, definition.endpoint);
}

/** A free-form text (reference §1.3), filled with the row's values and checked again by the text rules. */
function textForRow(text: TextPlan, job: RowToSend): Built {
  if (job.values.length !== text.columns.length) {
    return {
      ok: false,
      detail:
        `row has ${job.values.length} values, the text takes ${text.columns.length} ` +
        `(${text.columns.map((c) => `{{${c}}}`).join(' ')})`,
    };
  }
  for (const [i, column] of text.columns.entries()) {
    const problem = textValueProblem(job.values[i] ?? '');
    if (problem !== undefined) return { ok: false, detail: `value for {{${column}}} breaks the text rules (${problem})` };
  }
  const tooLong = textTooLong(text, job.values);
  if (tooLong !== undefined) return { ok: false, detail: tooLong.detail };
  return {
    ok: true,
    message: {
      kind: 'text',
      to: job.to,
      body: fillText(text, job.values),
      previewUrl: text.previewUrl,
      // Lets a status webhook (131047 among them) find the row even without the wamid index.
      callbackData: `${job.campaignId}/${job.row}`,
    },
  };
}

function templateForRow(plan: SendPlan, job: RowToSend, endpoint: CampaignDefinition['endpoint']): Built {
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
  if (endpoint !== undefined) message.endpoint = endpoint;
  return { ok: true, message };
}
