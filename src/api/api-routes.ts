import type { FastifyInstance } from 'fastify';
import type { ApiRouteDefinition } from './api-route.js';
import type { ApiServices } from './api-services.js';
import { listCampaignsRoute, registerCampaignListRoute } from './routes/campaign-list-route.js';
import { registerOpenApiRoute } from './routes/openapi-route.js';

/** Every route of the API, as data: the OpenAPI document is made from this list. */
export const API_ROUTES: readonly ApiRouteDefinition[] = [listCampaignsRoute];

/** Adds every route to the API's scope. */
export function registerApiRoutes(app: FastifyInstance, services: ApiServices): void {
  registerCampaignListRoute(app, services);
  registerOpenApiRoute(app, API_ROUTES);
}
