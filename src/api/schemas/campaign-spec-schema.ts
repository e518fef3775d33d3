import { campaignFlagsSchema } from '../../campaigns/spec/campaign-flags.js';
import { SPEC_RULES } from './spec-rules.js';

/**
 * The campaign spec of POST /campaigns as the document states it: the flags of `campaign send`
 * camelCased (CampaignFlags, `maxCost` among them). The route reads it with readCampaignFlags,
 * which reports every problem at once; the rules between fields (one message, the fields that
 * need another) are stated as SPEC_RULES.
 */
export const campaignSpecSchema = campaignFlagsSchema.omit({ audience: true, where: true }).meta({
  id: 'CampaignSpec',
  description:
    'The campaign: the long flags of `campaign send` in camelCase (`--phone-number-id` → `phoneNumberId`, `--at` → `at`; ' +
    'list flags take arrays, `"params": ["name", "order_id"]`; `--param name=column` takes an object), and `maxCost`. ' +
    'It goes with its file; a campaign to a stored audience is POST /audiences/{name}/campaigns.',
  ...SPEC_RULES,
});

/**
 * The campaign spec of POST /audiences/{name}/campaigns: the same fields but the file's place is the
 * audience's (the path names it, `where` chooses its contacts) and it starts a new campaign (no `campaign`).
 */
export const audienceCampaignSpecSchema = campaignFlagsSchema
  .omit({ audience: true, campaign: true })
  // Its body is the spec alone: none at all says nothing to send (the document's `oneOf` says so too).
  .refine((spec) => spec.template !== undefined || spec.text !== undefined, {
    message: 'say what to send: template (with language) or text',
  })
  .meta({
    id: 'AudienceCampaignSpec',
    description:
      'A campaign to the audience the path names, as `campaign send --audience NAME` takes it: the fields of CampaignSpec ' +
      "but `campaign`, and `where`, the filter over the contacts' attributes (docs/audiences.md); the audience is the " +
      "sending number's portfolio's.",
    ...SPEC_RULES,
  });
