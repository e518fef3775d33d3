import type { FastifyInstance } from 'fastify';
import type { DashboardAccess } from './access.js';
import { NEW_CAMPAIGN_PATH, NEW_CAMPAIGN_SCRIPT_PATH, newCampaignPage } from './new-campaign-page.js';
import { NEW_CAMPAIGN_SCRIPT } from './new-campaign-script.js';
import { sendPage } from './page-answers.js';
import { RETARGET_SCRIPT, RETARGET_SCRIPT_PATH } from './retarget-form.js';

/**
 * The New campaign page and the scripts of the pages that create campaigns through the HTTP
 * API (it and the Retarget form): the page holds a CSRF token for the API's `X-CSRF-Token`.
 */
export function registerNewCampaignRoutes(app: FastifyInstance, access: Pick<DashboardAccess, 'formToken'>): void {
  app.get(NEW_CAMPAIGN_PATH, async (_request, reply) => sendPage(reply, newCampaignPage(await access.formToken())));
  const script = (path: string, body: string) =>
    app.get(path, async (_request, reply) =>
      reply
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .type('text/javascript; charset=utf-8')
        .send(body),
    );
  script(NEW_CAMPAIGN_SCRIPT_PATH, NEW_CAMPAIGN_SCRIPT);
  script(RETARGET_SCRIPT_PATH, RETARGET_SCRIPT);
}
