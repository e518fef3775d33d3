import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/key-scope.js';
import { RedisApiTokens } from '../redis/access/redis-api-tokens.js';
import { RedisCampaignHistory } from '../redis/history/redis-campaign-history.js';
import type { RedisLedger } from '../redis/ledger/redis-ledger.js';
import type { DashboardSessions } from '../http/dashboard-sessions.js';
import { recordAction, type ActionHistory } from '../app/action-history.js';
import { registerApiRoutes } from './api-routes.js';
import type { ApiServices } from './api-services.js';
import { registerApi } from './api-server.js';

export interface HttpApiOptions {
  config: Config;
  logger: Logger;
  /** The API's own connection (fail-fast, like the service's others). */
  redis: RedisClient;
  ledger: RedisLedger;
  sessions: DashboardSessions | undefined;
  now?: () => number;
}

/** `campaign serve`'s HTTP API (/api/v1), on its own connection; register() adds it to the service. */
export function createHttpApi(options: HttpApiOptions): { register(app: FastifyInstance): Promise<void> } {
  const { config, logger, redis, ledger } = options;
  const history: ActionHistory = { history: new RedisCampaignHistory(redis, config.queuePrefix), logger };
  const services: ApiServices = {
    context: { config, logger, redis, ledger },
    now: options.now ?? Date.now,
    recordAction: (campaignId, caller, action, detail) =>
      recordAction(history, { kind: caller.kind, name: caller.name }, campaignId, action, detail),
  };
  return {
    register: (app) =>
      registerApi(app, {
        redis,
        prefix: config.queuePrefix,
        tokens: new RedisApiTokens(redis, config.queuePrefix),
        sessions: options.sessions,
        limits: config.httpApi,
        logger,
        routes: (scope) => registerApiRoutes(scope, services),
      }),
  };
}
