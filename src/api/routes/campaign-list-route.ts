import { z } from 'zod';
import { newestFirst, pageStartAfter } from '../../campaigns/campaign-order.js';
import { statusJson, statusViewSchema } from '../../app/views/status-view.js';
import type { ApiServices } from '../api-services.js';
import { registerApiRoute, type ApiRouteDefinition } from '../api-route.js';
import type { FastifyInstance } from 'fastify';
import { problemAnswers } from '../schemas/problem-answers.js';

const STATES = ['scheduled', 'ingesting', 'running', 'paused', 'completed', 'cancelled'] as const;

export const listCampaignsRoute = {
  method: 'GET',
  path: '/campaigns',
  operationId: 'listCampaigns',
  summary: 'Campaigns, newest first, a page at a time',
  scope: 'read',
  query: z.strictObject({
    state: z.enum(STATES).optional().meta({ description: 'Only campaigns in this state.' }),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().optional().meta({ description: 'The `nextCursor` of the previous page.' }),
  }),
  responses: {
    200: {
      description: 'A page of campaigns',
      schema: z.object({ campaigns: z.array(statusViewSchema), nextCursor: z.string().nullable() }),
    },
    ...problemAnswers(400, 401, 403, 429),
  },
} satisfies ApiRouteDefinition;

/** `campaign list --json`, a page at a time: the cursor is the ID the next page starts after. */
export function registerCampaignListRoute(app: FastifyInstance, services: ApiServices): void {
  registerApiRoute(app, listCampaignsRoute, async ({ query }) => {
    const { ledger } = services.context;
    const ids = newestFirst(await ledger.listCampaigns());
    const start = pageStartAfter(ids, query.cursor);
    const campaigns = [];
    let index = start < 0 ? ids.length : start;
    for (; index < ids.length && campaigns.length < query.limit; index++) {
      const status = await ledger.status(ids[index]!);
      if (status === undefined || (query.state !== undefined && status.state !== query.state)) continue;
      campaigns.push(statusJson(status, undefined, await ledger.getCampaign(ids[index]!)));
    }
    // The last ID looked at, kept or filtered out: the next page starts after it.
    return { campaigns, nextCursor: index < ids.length && index > 0 ? ids[index - 1]! : null };
  });
}
