import { z } from 'zod';

/** `/campaigns/{id}`: a campaign's ID, as `campaign list` shows it. */
export const campaignIdParams = z.strictObject({
  id: z.string().min(1).max(200).meta({ description: 'The campaign ID.' }),
});
