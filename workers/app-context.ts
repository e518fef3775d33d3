import type { Redis } from 'ioredis';
import { loadConfig, type Config, type RequiredSetting } from '../src/config/config.js';
import { createLogger, type Logger } from '../src/logging/logger.js';
import { RedisLedger } from '../src/redis/redis-ledger.js';
import { assertRedisAnswers, createRedis } from '../src/redis/redis-connection.js';

/** What every command needs: config, a logger, Redis and the ledger. */
export interface AppContext {
  config: Config;
  logger: Logger;
  redis: Redis;
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
  const logger = createLogger(config.logLevel);
  await assertRedisAnswers(config.redisUrl);
  const redis = createRedis(config.redisUrl, { forWorker: true });
  redis.on('error', (error) => logger.warn({ err: error }, 'redis connection error'));
  return {
    config,
    logger,
    redis,
    ledger: new RedisLedger(redis, config.queuePrefix, { autoPause: config.autoPause, duplicateWindowMs: config.duplicateWindowMs, confirmWindowMs: config.confirmWindowMs }),
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
