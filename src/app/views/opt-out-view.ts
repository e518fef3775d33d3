import { z } from 'zod';
import type { OptOutSource } from '../../campaigns/ledger.js';

/**
 * One opt-out as `campaign optouts list --json` prints it and the HTTP API answers it (`OptOut`
 * in its OpenAPI document): the one definition of both.
 */
export const optOutViewSchema = z
  .object({
    phone: z.string().meta({ description: 'E.164.' }),
    at: z.string().meta({ description: 'When it was learnt (ISO 8601).' }),
    via: z
      .string()
      .meta({ description: '`131050` (Meta refused a send), `keyword`, `user_preferences` (stopped in WhatsApp) or `operator`.' }),
    campaignId: z.string().nullable(),
    row: z.number().int().nullable(),
  })
  .meta({ id: 'OptOut' });

export type OptOutView = z.output<typeof optOutViewSchema>;

/** An opt-out as the ledger keeps it: the recipient and how it was learnt. */
export interface OptOut {
  phone: string;
  source: OptOutSource;
}

/** The ledger writes no `via` for an opt-out learnt from Meta's 131050, and no campaign or row for the others. */
export function optOutJson(optOut: OptOut): OptOutView {
  const { phone, source } = optOut;
  return {
    phone,
    at: new Date(source.at).toISOString(),
    via: source.via ?? '131050',
    campaignId: source.campaignId || null,
    row: source.row || null,
  };
}
