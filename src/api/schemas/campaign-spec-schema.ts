import { z } from 'zod';
import { campaignFlagsSchema } from '../../campaigns/spec/campaign-flags.js';
import { SPEC_RULES } from './spec-rules.js';

/**
 * The campaign spec of POST /campaigns as the document states it: the flags of `campaign send`
 * camelCased, and `maxCost` beside them (a limit on creating it, not a field of the campaign).
 * The route reads it with readCampaignFlags, which reports every problem at once; the rules
 * between fields (one message, the fields that need another) are stated as SPEC_RULES.
 */
export const campaignSpecSchema = campaignFlagsSchema
  .extend({
    maxCost: z.number().min(0).optional().meta({
      description: "Refuse the campaign, before a row is queued, when its estimated cost is above this (the rate card's currency).",
    }),
  })
  .meta({
    id: 'CampaignSpec',
    description:
      'The campaign: the long flags of `campaign send` in camelCase (`--phone-number-id` → `phoneNumberId`, `--at` → `at`; ' +
      'list flags take arrays, `"params": ["name", "order_id"]`; `--param name=column` takes an object), and `maxCost`.',
    ...SPEC_RULES,
  });
