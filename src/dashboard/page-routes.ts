import type { FastifyInstance } from 'fastify';
import type { ReportLedger } from '../campaigns/ledger.js';
import type { DashboardAccess } from './access.js';
import { CONTROL_ACTIONS, campaignPage, type ControlAction } from './campaign-page.js';
import { LIST_JSON_PATH, campaignsPage } from './campaigns-page.js';
import type { DashboardReader } from './dashboard-reader.js';
import { notFoundPage, sendPage } from './page-answers.js';
import { registerPageAssets } from './page-assets.js';
import { reportDisposition, reportStream } from '../http/report-download.js';
import { registerNewCampaignRoutes } from './new-campaign-routes.js';
import { registerAudiencePages, type AudiencePagesDeps } from './audiences-routes.js';
import type { UserIdsOf } from '../campaigns/report/report.js';

export interface PageRoutesDeps {
  reader: DashboardReader;
  ledger: Pick<ReportLedger, 'rows' | 'status'>;
  access: DashboardAccess;
  onReportError: (campaignId: string, error: Error) => void;
  now: () => number;
  /** The report's `user_id` column of a campaign (its portfolio's user links); without it the column is empty. */
  userIds?: (campaignId: string) => Promise<UserIdsOf>;
  /** The Audiences pages' store and logger; without them the pages have no Audiences. */
  audiences?: Pick<AudiencePagesDeps, 'store' | 'logger'>;
}

type IdParams = { id: string };

/** The pages (the New campaign page too), their live JSON, the report download and the page assets (all GET). */
export function registerPageRoutes(app: FastifyInstance, deps: PageRoutesDeps): void {
  const { reader, access, now } = deps;
  registerNewCampaignRoutes(app, access);
  if (deps.audiences !== undefined) registerAudiencePages(app, { ...deps.audiences, access, now });

  app.get('/', async (_request, reply) => {
    const [views, accountErrors] = await Promise.all([reader.list(), reader.accountErrors()]);
    return sendPage(reply, campaignsPage(views, now(), accountErrors));
  });

  app.get(LIST_JSON_PATH, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ at: new Date(now()).toISOString(), campaigns: await reader.list() }),
  );

  app.get<{ Params: IdParams; Querystring: { done?: string } }>('/campaigns/:id', async (request, reply) => {
    const { id } = request.params;
    const detail = await reader.detail(id);
    if (detail === undefined) return notFoundPage(reply, id);
    const done = CONTROL_ACTIONS.find((a): a is ControlAction => a === request.query.done);
    const charts = await reader.charts(id, detail.tally);
    return sendPage(reply, campaignPage({ detail, csrfToken: await access.formToken(), done, charts }));
  });

  app.get<{ Params: IdParams }>('/api/campaigns/:id', async (request, reply) => {
    const [view, charts] = await Promise.all([reader.live(request.params.id), reader.charts(request.params.id)]);
    if (view === undefined) return reply.code(404).send({ error: 'no such campaign' });
    return reply.header('cache-control', 'no-store').send({ at: new Date(now()).toISOString(), campaigns: [view], charts });
  });

  app.get<{ Params: IdParams }>('/campaigns/:id/report.csv', async (request, reply) => {
    const { id } = request.params;
    if ((await deps.ledger.status(id)) === undefined) return notFoundPage(reply, id);
    const userIds = await deps.userIds?.(id);
    const stream = reportStream(deps.ledger, id, (error) => deps.onReportError(id, error), userIds);
    return reply
      .header('content-disposition', reportDisposition(id, await reader.name(id)))
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .type('text/csv; charset=utf-8')
      .send(stream);
  });

  registerPageAssets(app);
}
