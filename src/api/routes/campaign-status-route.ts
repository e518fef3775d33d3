import type { FastifyInstance } from 'fastify';
import { readCampaignStatus, statusViewOf } from '../../app/campaign-status.js';
import { statusViewSchema } from '../../app/views/status-view.js';
import { registerApiRoute, type ApiRouteDefinition } from '../api-route.js';
import type { ApiServices } from '../api-services.js';
import { campaignIdParams } from '../schemas/campaign-params.js';
import { problemAnswers } from '../schemas/problem-answers.js';

export const getCampaignRoute = {
  method: 'GET',
  path: '/campaigns/:id',
  operationId: 'getCampaign',
  summary: 'A campaign: its state, counts, send window and cost, as `campaign status --json` shows it',
  scope: 'read',
  params: campaignIdParams,
  responses: {
    200: { description: 'The campaign', schema: statusViewSchema },
    ...problemAnswers(400, 401, 403, 404, 429, 503),
  },
} satisfies ApiRouteDefinition;

/** `campaign status ID --json`: what the command reads, read the same way. */
export function registerCampaignStatusRoute(app: FastifyInstance, services: ApiServices): void {
  registerApiRoute(app, getCampaignRoute, async ({ params }) =>
    statusViewOf(await readCampaignStatus(services.context, params.id, services.now())),
  );
}
