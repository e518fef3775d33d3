import type { FastifyInstance } from 'fastify';
import type { DashboardAccess } from './access.js';
import { NEW_CAMPAIGN_HEADERS, NEW_CAMPAIGN_PATH, newCampaignPage } from './new-campaign-page.js';
import { sendPage } from './page-answers.js';

/**
 * The New campaign page, which creates campaigns through the HTTP API: it holds a CSRF token for
 * the API's `X-CSRF-Token`. Its script is a page asset (src/dashboard/page-assets.ts).
 */
export function registerNewCampaignRoutes(app: FastifyInstance, access: Pick<DashboardAccess, 'formToken'>): void {
  app.get(NEW_CAMPAIGN_PATH, async (_request, reply) =>
    sendPage(reply, newCampaignPage(await access.formToken()), 200, NEW_CAMPAIGN_HEADERS),
  );
}
