import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { tempDir } from '../support/csv-files.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { webhookKeys } from '../../src/redis/webhook-keys.js';

/**
 * `npm run demo` (campaign demo): the sandbox, a worker and the webhook service in one
 * process; the sandbox's signed status webhooks go through the service to the rows, so the
 * summary shows every sent message delivered and the sandbox's share read.
 */
describe('campaign demo', () => {
  it('sends the samples and ends with delivered and read counts from the webhooks', async () => {
    const prefix = freshPrefix('demo');
    const dir = await tempDir();
    const redis = testRedis();
    try {
      const result = await runCli(['demo'], { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, REPORTS_DIR: dir.dir, SEND_RATE: '0', LOG_LEVEL: 'warn' });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/completed/);
      expect(result.stdout).toContain('sent 190 (delivered 190, read 95)');
      expect(await redis.hget(webhookKeys(prefix).stats, 'statuses')).not.toBeNull();
    } finally {
      await removePrefix(redis, prefix);
      await redis.quit();
      await dir.cleanup();
    }
  });
});
