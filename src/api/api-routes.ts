import type { FastifyInstance } from 'fastify';
import type { ApiRouteDefinition } from './api-route.js';
import type { ApiServices } from './api-services.js';
import { createCampaignRoute, registerCampaignCreateRoute } from './routes/campaign-create-route.js';
import { listCampaignsRoute, registerCampaignListRoute } from './routes/campaign-list-route.js';

/** Every route of the API, as data: the OpenAPI document is made from this list. */
export const API_ROUTES: readonly ApiRouteDefinition[] = [listCampaignsRoute, createCampaignRoute];

/** Adds every route to the API's scope. */
export function registerApiRoutes(app: FastifyInstance, services: ApiServices): void {
  registerCampaignListRoute(app, services);
  registerCampaignCreateRoute(app, services);
}
