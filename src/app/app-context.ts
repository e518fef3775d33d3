import { loadConfig, type Config, type RequiredSetting } from '../config/config.js';
import { createLogger, type Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/key-scope.js';
import { RedisLedger } from '../redis/ledger/redis-ledger.js';
import { ledgerOptionsOf } from './ledger-options.js';
import { assertRedisAnswers, createRedis } from '../redis/redis-connection.js';

/** What every command needs: config, a logger, Redis and the ledger. */
export interface AppContext {
  config: Config;
  logger: Logger;
  redis: RedisClient;
  ledger: RedisLedger;
  close(): Promise<void>;
}

/** `defaults` apply where the environment says nothing; `overrides` win over it. */
export async function openContext(
  required: readonly RequiredSetting[] = [],
  overrides: Record<string, string | undefined> = {},
  defaults: Record<string, string> = {},
): Promise<AppContext> {
  const config = loadConfig({ ...defaults, ...process.env, ...overrides }, required);
  // Made at its first use: `status` and `list` never log, and pino's loading is start-up time.
  let made: Logger | undefined;
  const logger = (): Logger => (made ??= createLogger(config.logLevel));
  await assertRedisAnswers(config);
  const redis = createRedis(config, { forWorker: true });
  redis.on('error', (error) => logger().warn({ err: error }, 'redis connection error'));
  return {
    config,
    get logger() {
      return logger();
    },
    redis,
    ledger: new RedisLedger(redis, config.queuePrefix, ledgerOptionsOf(config, logger)),
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
