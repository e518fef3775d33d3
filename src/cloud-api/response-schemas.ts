import { z } from 'zod';

/** `MessageResponsePayload` (reference §1.5); unknown keys are allowed, Meta adds them. */
export const sendResponseSchema = z.object({
  messaging_product: z.literal('whatsapp'),
  contacts: z.array(z.object({ input: z.string(), wa_id: z.string() })).min(1),
  messages: z
    .array(
      z.object({
        id: z.string().startsWith('wamid.'),
        message_status: z.string().optional(),
      }),
    )
    .min(1),
});

/** Graph API error envelope (reference §2.1). */
export const graphErrorSchema = z.object({
  error: z.object({
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.number().int(),
    error_subcode: z.number().int().optional(),
    error_data: z.object({ details: z.string().optional() }).loose().optional(),
    fbtrace_id: z.string().optional(),
  }),
});
