import type { FastifyInstance } from 'fastify';
import type { RedisClient } from '../redis/key-scope.js';
import type { ControlLedger, ReportLedger } from '../campaigns/ledger.js';
import type { CampaignCountersReader } from '../campaigns/report/campaign-counters.js';
import type { ErrorCodeLedger } from '../campaigns/report/error-codes.js';
import type { TimelineLedger } from '../campaigns/report/campaign-timeline.js';
import type { Logger } from '../logging/logger.js';
import { ScrapeReader } from '../metrics/scrape-reader.js';
import type { PortfolioAssignments } from '../portfolios/portfolios.js';
import { reportUserIds } from '../redis/webhooks/redis-user-links.js';
import { RedisCampaignHistory } from '../redis/history/redis-campaign-history.js';
import { RedisTemplateInfo } from '../redis/templates/redis-template-info.js';
import { RedisAccountErrors } from '../redis/metrics/redis-account-errors.js';
import { RedisAudiences } from '../redis/audiences/redis-audiences.js';
import { RedisLoginAttempts } from '../redis/access/redis-login-attempts.js';
import type { DashboardSessions } from '../http/dashboard-sessions.js';
import type { HooksContext } from '../app/hooks.js';
import { DashboardAccess } from './access.js';
import type { DashboardCredentials } from './basic-auth.js';
import { CampaignDirectory } from './campaign-directory.js';
import { registerControlRoutes } from './control-routes.js';
import { CsrfTokens, redisCsrfKey } from './csrf.js';
import { DashboardReader } from './dashboard-reader.js';
import { ErrorTallies } from './error-tallies.js';
import { LoginThrottle } from './login-throttle.js';
import { pageFailures } from './page-errors.js';
import { registerPageRoutes } from './page-routes.js';
import { registerHookPages } from './hooks-routes.js';
import { QUEUES_PATH, QueueBoard } from './queue-board.js';

export interface DashboardOptions {
  /** The dashboard's own connection (fail-fast, like the service's others). */
  redis: RedisClient;
  /** QUEUE_PREFIX. */
  prefix: string;
  ledger: ReportLedger & ControlLedger & ErrorCodeLedger & CampaignCountersReader & TimelineLedger;
  /** DASHBOARD_USER and DASHBOARD_PASSWORD; undefined: no password (serve listens on loopback only). */
  credentials: DashboardCredentials | undefined;
  logger: Logger;
  /** The number's configured rate (sendRateOf), for the ETA of windowed campaigns and of those with no answer yet. */
  sendRate: (phoneNumberId: string) => number;
  /** PORTFOLIOS: the report's `user_id` column reads the campaign's portfolio's user links (default: one portfolio). */
  portfolios?: PortfolioAssignments;
  /** What the Hooks pages run `campaign hooks …` on; without it the pages have no Hooks. */
  hooks?: HooksContext;
  now?: () => number;
}

export interface Dashboard {
  /** Adds `/`, `/campaigns/…`, `/api/campaigns…`, `/dashboard/…` and `/queues` to the service, behind basic auth when a password is set. */
  register(app: FastifyInstance): Promise<void>;
  /** Checks the pages' own requests to the HTTP API (basic auth, CSRF header, same site). */
  sessions: DashboardSessions;
  /** The queues bull-board shows now (tests). */
  queueNames(): string[];
  close(): Promise<void>;
}

/**
 * `campaign serve`'s campaigns page and queue dashboard: built from the ledger, the
 * metrics figures and bull-board; every request reads Redis afresh, so the service stays
 * stateless and any instance behind a load balancer shows the same.
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const { redis, prefix, ledger, logger } = options;
  const now = options.now ?? Date.now;
  const directory = new CampaignDirectory(ledger);
  const history = new RedisCampaignHistory(redis, prefix);
  // Every campaign keeps its figures here (no retention: the page lists finished campaigns too).
  const scrapeReader = new ScrapeReader({ redis, prefix, retentionMs: Number.POSITIVE_INFINITY, now, sendRate: options.sendRate, ledger });
  const reader = dashboardReader(options, { directory, history, scrapeReader }, now);
  const access = new DashboardAccess({
    credentials: options.credentials,
    csrf: new CsrfTokens({ key: redisCsrfKey(redis, prefix), now }),
    throttle: new LoginThrottle({
      store: new RedisLoginAttempts(redis, prefix),
      logger,
      dashboardUser: options.credentials?.user ?? '',
      now,
    }),
    logger,
  });
  const board = new QueueBoard({ redis, prefix, numbers: () => directory.numbers(), now });

  const register = async (app: FastifyInstance): Promise<void> => {
    await app.register(async (scope) => {
      // The service keeps request bodies as bytes (webhook signatures); these routes take forms and bull-board's JSON.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))));
      });
      scope.addContentTypeParser('application/json', { parseAs: 'string' }, scope.getDefaultJsonParser('error', 'error'));
      scope.addHook('onRequest', access.authenticate);
      // Redis away: 503 REDIS_UNAVAILABLE with Retry-After (a page saying so), never a failed command's 500.
      const failures = pageFailures(redis, logger);
      scope.addHook('preHandler', failures.gate);
      scope.setErrorHandler(failures.errorHandler);
      registerPageRoutes(scope, {
        reader,
        ledger,
        access,
        now,
        onReportError: (campaignId, error) => logger.warn({ campaignId, reason: error.message }, 'report download ended early'),
        userIds: async (campaignId) =>
          reportUserIds(redis, prefix, options.portfolios ?? new Map(), (await ledger.getCampaign(campaignId))?.phoneNumberId ?? ''),
        audiences: { store: new RedisAudiences(redis, prefix), logger },
      });
      registerControlRoutes(scope, { ledger, reader, history, access, logger, now });
      if (options.hooks !== undefined) registerHookPages(scope, { context: options.hooks, access, logger });
      await scope.register(
        async (queues) => {
          queues.addHook('onRequest', access.refuseUnsafeCrossSite);
          // Numbers that got their first campaign since the last look get their queue (errors: shown as they were).
          queues.addHook('onRequest', async () => board.refresh().catch(() => undefined));
          await queues.register(board.plugin());
        },
        { prefix: QUEUES_PATH },
      );
    });
  };

  return {
    register,
    sessions: access,
    queueNames: () => board.queueNames(),
    close: async () => {
      await Promise.all([board.close(), scrapeReader.close()]);
    },
  };
}

/** What the pages read, each from its own store: the ledger, the metrics figures, templates, history, account errors. */
function dashboardReader(
  options: DashboardOptions,
  { directory, history, scrapeReader }: { directory: CampaignDirectory; history: RedisCampaignHistory; scrapeReader: ScrapeReader },
  now: () => number,
): DashboardReader {
  const { redis, prefix, ledger } = options;
  const accountErrors = new RedisAccountErrors(redis, prefix);
  return new DashboardReader({
    ledger,
    directory,
    snapshot: () => scrapeReader.read(),
    tallies: new ErrorTallies({ scan: async (id) => ({ ...(await ledger.errorCodes(id)), at: now() }), now }),
    templateInfos: () => new RedisTemplateInfo(redis, prefix).all(),
    history,
    accountErrors: () => accountErrors.recent(),
    now,
  });
}
