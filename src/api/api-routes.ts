import type { FastifyInstance } from 'fastify';
import type { ApiRouteDefinition } from './api-route.js';
import type { ApiServices } from './api-services.js';
import { createCampaignRoute, registerCampaignCreateRoute } from './routes/campaign-create-route.js';
import { listCampaignsRoute, registerCampaignListRoute } from './routes/campaign-list-route.js';
import { registerOpenApiRoute } from './routes/openapi-route.js';
import { getCampaignRoute, registerCampaignStatusRoute } from './routes/campaign-status-route.js';
import { campaignRejectsRoute, campaignReportRoute, registerCampaignFilesRoutes } from './routes/campaign-files-routes.js';
import {
  cancelCampaignRoute,
  pauseCampaignRoute,
  registerCampaignControlRoutes,
  rescheduleCampaignRoute,
  resumeCampaignRoute,
  retryCampaignRoute,
} from './routes/campaign-control-routes.js';
import { registerCampaignRetargetRoute, retargetCampaignRoute } from './routes/campaign-retarget-route.js';
import { listNumbersRoute, listTemplatesRoute, registerDirectoryRoutes } from './routes/directory-routes.js';
import {
  deleteAudienceRoute,
  exportAudienceRoute,
  getAudienceRoute,
  importAudienceRoute,
  listAudiencesRoute,
  registerAudiencesRoutes,
  removeContactsRoute,
} from './routes/audiences-routes.js';
import { audienceCampaignRoute, registerAudienceCampaignRoute } from './routes/audience-campaign-route.js';
import { addOptOutsRoute, listOptOutsRoute, registerOptOutsRoutes, removeOptOutsRoute } from './routes/optouts-routes.js';
import {
  addHookRoute,
  failedHookEventsRoute,
  getHookRoute,
  listHooksRoute,
  redeliverHookRoute,
  registerHooksRoutes,
  removeHookRoute,
  testHookRoute,
} from './routes/hooks-routes.js';

/** Every route of the API, as data: the OpenAPI document is made from this list. */
export const API_ROUTES: readonly ApiRouteDefinition[] = [
  listCampaignsRoute,
  createCampaignRoute,
  getCampaignRoute,
  campaignReportRoute,
  campaignRejectsRoute,
  pauseCampaignRoute,
  resumeCampaignRoute,
  cancelCampaignRoute,
  rescheduleCampaignRoute,
  retryCampaignRoute,
  retargetCampaignRoute,
  listTemplatesRoute,
  listNumbersRoute,
  listOptOutsRoute,
  addOptOutsRoute,
  removeOptOutsRoute,
  listAudiencesRoute,
  getAudienceRoute,
  importAudienceRoute,
  exportAudienceRoute,
  removeContactsRoute,
  deleteAudienceRoute,
  audienceCampaignRoute,
  listHooksRoute,
  addHookRoute,
  getHookRoute,
  removeHookRoute,
  testHookRoute,
  failedHookEventsRoute,
  redeliverHookRoute,
];

/** Adds every route to the API's scope. */
export function registerApiRoutes(app: FastifyInstance, services: ApiServices): void {
  registerCampaignListRoute(app, services);
  registerOpenApiRoute(app, API_ROUTES);
  registerCampaignStatusRoute(app, services);
  registerCampaignFilesRoutes(app, services);
  registerCampaignControlRoutes(app, services);
  registerCampaignRetargetRoute(app, services);
  registerDirectoryRoutes(app, services);
  registerOptOutsRoutes(app, services);
  registerAudiencesRoutes(app, services);
  registerAudienceCampaignRoute(app, services);
  registerHooksRoutes(app, services);
  registerCampaignCreateRoute(app, services);
}
