import { z } from 'zod';
import { SANDBOX_WABA_ID } from './webhook-payloads.js';

/**
 * `POST /_sandbox/template-status`: Meta changing a template's status, played by the sandbox.
 * The template's status changes (so its sends answer 132015 / 132016 as Meta's do), and a
 * `message_template_status_update` webhook goes out in Meta's shape (reference cloud-api.md §3.7).
 */
export const templateStatusRequestSchema = z.object({
  name: z.string().min(1),
  language: z.string().min(1),
  event: z.enum(['APPROVED', 'PAUSED', 'DISABLED', 'REINSTATED', 'ARCHIVED', 'UNARCHIVED', 'FLAGGED', 'REJECTED']),
  reason: z.string().optional(),
});

export type TemplateStatusRequest = z.infer<typeof templateStatusRequestSchema>;

/** The status a template has after the event: REINSTATED and UNARCHIVED make it APPROVED again; FLAGGED keeps it. */
export function statusAfter(event: TemplateStatusRequest['event'], current: string): string {
  if (event === 'REINSTATED' || event === 'UNARCHIVED') return 'APPROVED';
  if (event === 'FLAGGED') return current;
  return event;
}

/** The webhook body: one entry for the sandbox's WABA, one `message_template_status_update` change. */
export function templateStatusPayload(request: TemplateStatusRequest, templateId: string, atMs: number): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: SANDBOX_WABA_ID,
        time: Math.floor(atMs / 1000),
        changes: [
          {
            field: 'message_template_status_update',
            value: {
              event: request.event,
              message_template_id: Number(templateId),
              message_template_name: request.name,
              message_template_language: request.language,
              reason: request.reason ?? 'NONE',
            },
          },
        ],
      },
    ],
  });
}
