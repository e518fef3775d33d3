import type { OutboundMessage, TemplateMessage } from '../../cloud-api/outbound-message.js';
import { campaignMessage, type CampaignDefinition } from '../campaign.js';
import { textValueProblem } from '../parameter-rules.js';
import { fillSlots } from './template-for-row.js';
import { planOfRow } from '../row-plan.js';
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
  if (message.kind === 'text') return textForRow(message.text, job);
  // With a language per row, the row's first value is the language of the translation it is sent in.
  const plan = planOfRow(definition, job.values);
  if (plan === undefined) return { ok: false, detail: `the row's language "${job.values[0] ?? ''}" has no plan in this campaign` };
  return templateForRow(plan, job, definition.endpoint);
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
  const filled = fillSlots(plan, job.values, Date.now());
  if (!filled.ok) return filled;
  const tooLong = renderedTooLong(plan, job.values);
  if (tooLong !== undefined) return { ok: false, detail: tooLong.detail };

  const message: TemplateMessage = {
    kind: 'template',
    to: job.to,
    name: plan.name,
    language: plan.language,
    ...filled.message,
    // Lets a status webhook find the row even without the wamid index.
    callbackData: `${job.campaignId}/${job.row}`,
  };
  if (plan.headerMedia !== undefined) {
    if (job.headerLink === undefined) return { ok: false, detail: `template ${plan.name} needs a header ${plan.headerMedia.format} link` };
    const filename = filled.headerFilename;
    message.header = { type: plan.headerMedia.format, link: job.headerLink, ...(filename === undefined ? {} : { filename }) };
  }
  if (endpoint !== undefined) message.endpoint = endpoint;
  return { ok: true, message };
}
