import type { OutboundMessage, TemplateMessage } from '../cloud-api/outbound-message.js';
import type { CampaignDefinition } from './campaign.js';
import type { SendJob } from './send-job.js';

/** The template message for one job, or why the job cannot be a valid send. */
export function messageForRow(
  definition: CampaignDefinition,
  job: SendJob,
): { ok: true; message: OutboundMessage } | { ok: false; detail: string } {
  const { template } = definition;
  if (job.values.length !== template.bodyVariables.length) {
    return { ok: false, detail: `job has ${job.values.length} values, template ${template.name} takes ${template.bodyVariables.length}` };
  }
  const named = template.parameterFormat === 'NAMED';
  const message: TemplateMessage = {
    kind: 'template',
    to: job.to,
    name: template.name,
    language: template.language,
    body: job.values.map((text, i) => (named ? { text, name: template.bodyVariables[i] ?? '' } : { text })),
    // Lets a status webhook find the row even without the wamid index.
    callbackData: `${job.campaignId}/${job.row}`,
  };
  if (template.headerMedia !== undefined) {
    if (job.headerLink === undefined) return { ok: false, detail: `template ${template.name} needs a header ${template.headerMedia} link` };
    message.header = { type: template.headerMedia, link: job.headerLink };
  }
  return { ok: true, message };
}
