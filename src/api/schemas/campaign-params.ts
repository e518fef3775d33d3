import { z } from 'zod';
import { CAMPAIGN_ID_PATTERN } from '../../campaigns/campaign-id.js';

/** The longest campaign ID CAMPAIGN_ID_PATTERN takes (stated on its own too: a generated client reads `maxLength`; one problem per ID). */
const CAMPAIGN_ID_MAX = 64;

/** `/campaigns/{id}`: a campaign's ID, as `campaign list` shows it; any other is refused (400) before anything is read. */
export const campaignIdParams = z.strictObject({
  id: z
    .string()
    .min(1, { abort: true })
    .max(CAMPAIGN_ID_MAX, { abort: true })
    .regex(CAMPAIGN_ID_PATTERN, { error: 'not a campaign ID (a letter, then up to 63 letters, digits, _ or -)' })
    .meta({ description: 'The campaign ID.' }),
});
