import { campaignFlagsSchema } from '../../campaigns/spec/campaign-flags.js';
import { SPEC_RULES } from './spec-rules.js';

/**
 * The campaign spec of POST /campaigns as the document states it: the flags of `campaign send`
 * camelCased (CampaignFlags, `maxCost` among them). The route reads it with readCampaignFlags,
 * which reports every problem at once; the rules between fields (one message, the fields that
 * need another) are stated as SPEC_RULES.
 */
export const campaignSpecSchema = campaignFlagsSchema.meta({
  id: 'CampaignSpec',
  description:
    'The campaign: the long flags of `campaign send` in camelCase (`--phone-number-id` → `phoneNumberId`, `--at` → `at`; ' +
    'list flags take arrays, `"params": ["name", "order_id"]`; `--param name=column` takes an object), and `maxCost`.',
  ...SPEC_RULES,
});
