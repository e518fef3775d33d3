import { z } from 'zod';
import { SANDBOX_WABA_ID } from './webhook-payloads.js';

/**
 * `POST /_sandbox/template-quality`: Meta changing a template's quality score or category,
 * played by the sandbox. The template changes (a category moved to MARKETING makes its sends
 * marketing: opt-outs and the US pause apply), and Meta's `message_template_quality_update` /
 * `template_category_update` webhooks go out, one per change.
 */
export const templateQualityRequestSchema = z
  .strictObject({
    name: z.string().min(1),
    language: z.string().min(1),
    quality: z.enum(['GREEN', 'YELLOW', 'RED', 'UNKNOWN']).optional(),
    category: z.enum(['MARKETING', 'UTILITY', 'AUTHENTICATION']).optional(),
  })
  .refine((r) => r.quality !== undefined || r.category !== undefined, { message: 'give quality, category, or both' });

export type TemplateQualityRequest = z.infer<typeof templateQualityRequestSchema>;

/** The webhook bodies for the changes, in Meta's shapes (done category changes: previous and new). */
export function templateQualityPayloads(
  request: TemplateQualityRequest,
  before: { templateId: string; quality: string | undefined; category: string | undefined },
  atMs: number,
): string[] {
  const template = {
    message_template_id: Number(before.templateId),
    message_template_name: request.name,
    message_template_language: request.language,
  };
  const changes: { field: string; value: Record<string, unknown> }[] = [];
  if (request.quality !== undefined) {
    const previous = before.quality ?? 'UNKNOWN';
    changes.push({
      field: 'message_template_quality_update',
      value: { previous_quality_score: previous, new_quality_score: request.quality, ...template },
    });
  }
  if (request.category !== undefined) {
    changes.push({
      field: 'template_category_update',
      value: { ...template, previous_category: before.category ?? '', new_category: request.category },
    });
  }
  return changes.map((change) =>
    JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: SANDBOX_WABA_ID, time: Math.floor(atMs / 1000), changes: [change] }],
    }),
  );
}
