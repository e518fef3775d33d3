import type { FastifyInstance } from 'fastify';
import { runControl, type ControlContext } from '../app/campaign-control.js';
import { parseStart } from '../campaigns/spec/time-options.js';
import type { ControlLedger } from '../campaigns/ledger.js';
import type { CampaignHistory } from '../campaigns/history/campaign-history.js';
import { AppError, isAppError } from '../errors/app-error.js';
import type { Logger } from '../logging/logger.js';
import type { DashboardAccess } from './access.js';
import { CONTROL_ACTIONS, campaignPage, type ControlAction } from './campaign-page.js';
import { campaignPath } from './campaigns-page.js';
import type { DashboardReader } from './dashboard-reader.js';
import { notFoundPage, sendPage } from './page-answers.js';

export interface ControlRoutesDeps {
  /** What the controls run on (`campaign pause | resume | cancel | reschedule`, through runControl). */
  ledger: ControlLedger;
  reader: DashboardReader;
  /** Where a control that changed the campaign is recorded, with the dashboard's user. */
  history: Pick<CampaignHistory, 'record'>;
  access: DashboardAccess;
  logger: Logger;
  now: () => number;
}

/** A form is small: its token, a reason, a time. */
const FORM_BODY_LIMIT = 16 * 1024;

/**
 * `POST /campaigns/:id/{pause,resume,cancel,reschedule}`: the campaign page's buttons, each
 * running what the CLI command of the same name runs (runControl: the ledger decides,
 * atomically). A control that worked redirects to the campaign's page (303, so a reload
 * does not post again); one the campaign's state refuses shows the page with the reason.
 * runControl records a control that changed the campaign in its history, naming the dashboard's user.
 */
export function registerControlRoutes(app: FastifyInstance, deps: ControlRoutesDeps): void {
  const { access, logger } = deps;
  const context: ControlContext = { ledger: deps.ledger, history: deps.history, logger, now: deps.now };
  app.post<{ Params: { id: string; action: string }; Body: Record<string, unknown> | undefined }>(
    '/campaigns/:id/:action',
    { bodyLimit: FORM_BODY_LIMIT, preHandler: access.checkForm },
    async (request, reply) => {
      const { id } = request.params;
      const action = CONTROL_ACTIONS.find((a) => a === request.params.action);
      if (action === undefined) return reply.code(404).send({ error: 'no such control' });
      const user = access.user;
      try {
        await run(action, id, request.body ?? {});
      } catch (error) {
        if (!isAppError(error)) throw error;
        if (error.code === 'CAMPAIGN_NOT_FOUND') return notFoundPage(reply, id);
        const detail = await deps.reader.detail(id);
        if (detail === undefined) return notFoundPage(reply, id);
        const status = error.code === 'CAMPAIGN_STATE_CONFLICT' ? 409 : 400;
        return sendPage(reply, campaignPage({ detail, csrfToken: await access.formToken(), error: error.message }), status);
      }
      logger.info({ campaignId: id, action, user: user === '' ? undefined : user }, 'campaign control run from the campaigns page');
      return reply
        .code(303)
        .header('location', `${campaignPath(id)}?done=${action}`)
        .send();
    },
  );

  async function run(action: ControlAction, id: string, body: Record<string, unknown>): Promise<void> {
    const actor = { kind: 'dashboard' as const, name: access.user };
    switch (action) {
      case 'pause': {
        const reason = access.user === '' ? 'paused from the campaigns page' : `paused from the campaigns page by ${access.user}`;
        await runControl(context, actor, 'pause', id, { reason });
        return;
      }
      case 'resume':
      case 'cancel':
        await runControl(context, actor, action, id, {});
        return;
      case 'reschedule': {
        const at = typeof body.at === 'string' ? body.at.trim() : '';
        if (at === '') throw new AppError('OPTION_INVALID', 'Give the new start, e.g. 2026-12-01T09:00:00+01:00');
        // The same checks as `campaign reschedule --at`, naming the form's field.
        await runControl(context, actor, 'reschedule', id, { startsAt: parseStart('New start', at, deps.now()) });
        return;
      }
    }
  }
}
