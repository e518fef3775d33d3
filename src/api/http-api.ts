import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/key-scope.js';
import { RedisApiTokens } from '../redis/access/redis-api-tokens.js';
import { RedisCampaignHistory } from '../redis/history/redis-campaign-history.js';
import type { RedisLedger } from '../redis/ledger/redis-ledger.js';
import type { DashboardSessions } from '../http/dashboard-sessions.js';
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
  const history = new RedisCampaignHistory(redis, config.queuePrefix);
  const services: ApiServices = {
    context: { config, logger, redis, ledger },
    now: options.now ?? Date.now,
    recordAction: async (campaignId, caller, action, detail) => {
      try {
        await history.record(campaignId, {
          at: Date.now(),
          actor: { kind: caller.kind, name: caller.name },
          action,
          ...(detail === undefined ? {} : { detail }),
        });
      } catch (error) {
        logger.warn({ err: error, campaignId, action }, 'campaign history not recorded (the action itself worked)');
      }
    },
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
