import { loadConfig } from '../../src/config/config.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import type { AppContext } from '../../src/app/app-context.js';
import { redisUrl, removePrefix, testRedis } from './redis.js';

/**
 * What the CLI's commands get, built for a test: real Redis under a fresh prefix, config
 * from the given settings only (never the developer's environment).
 */
export function testContext(prefix: string, settings: Record<string, string> = {}): AppContext {
  const config = loadConfig({ REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', ...settings });
  const redis = testRedis();
  return {
    config,
    logger: silentLogger(),
    redis,
    ledger: new RedisLedger(redis, prefix),
    async close() {
      await removePrefix(redis, prefix);
      await redis.quit();
    },
  };
}
