import { createServer } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/files/find-on-path.js';
import { somethingListens } from '../../src/redis/private/redis-for-run.js';
import { runCli } from '../support/cli-process.js';
import { tempDir } from '../support/csv-files.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { linesWithStacks, parseLogLines } from '../support/log-lines.js';

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
      const result = await runCli(['demo'], {
        REDIS_URL: redisUrl(),
        QUEUE_PREFIX: prefix,
        REPORTS_DIR: dir.dir,
        SEND_RATE: '0',
        LOG_LEVEL: 'warn',
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/completed/);
      expect(result.stdout).toContain('sent 190 (delivered 190, read 95)');
      expect(await redis.hget(webhookKeys(prefix).stats, 'statuses')).not.toBeNull();
      // Starting the service, the sandbox and a worker with Redis up is no error: no line with a stack.
      expect(linesWithStacks(parseLogLines(`${result.stderr}\n${result.stdout}`))).toEqual([]);
    } finally {
      await removePrefix(redis, prefix);
      await redis.quit();
      await dir.cleanup();
    }
  });

  /**
   * A machine with no Redis: REDIS_URL unset and nothing at the default address. The shared
   * Redis at 127.0.0.1:6379 keeps running for the other tests, so the demo is told (a hidden
   * option) that the default address is a closed port; it runs in an empty directory, so no
   * .env names a Redis either.
   */
  it('with no Redis reachable, starts its own, says which in one line, and stops it when it ends', async () => {
    const dir = await tempDir();
    const closed = `redis://127.0.0.1:${await closedPort()}`;
    try {
      const result = await runCli(
        ['demo', '--default-redis-url', closed],
        { REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined, REPORTS_DIR: dir.dir, SEND_RATE: '0', LOG_LEVEL: 'warn' },
        { cwd: dir.dir },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('sent 190 (delivered 190, read 95)');
      const line = /^Redis: nothing answers at (\S+), so this run started its own: (.+); it is stopped when the run ends\.$/m.exec(
        result.stdout,
      );
      expect(line, result.stdout).not.toBeNull();
      expect(line?.[1]).toBe(closed);
      const description = line?.[2] ?? '';
      // With a redis-server on the PATH (here, and in CI) it is the first choice.
      if (findOnPath('redis-server', process.env.PATH ?? '') !== undefined) expect(description).toMatch(/^redis-server from the PATH \(/);
      const [, address] = / on (\S+:\d+)$/.exec(description) ?? [];
      expect(address, description).toBeDefined();
      expect(await somethingListens(`redis://${address}`)).toBe(false);
      const pid = /\bpid (\d+)\b/.exec(description)?.[1];
      if (pid !== undefined) expect(processExists(Number(pid)), `pid ${pid} still runs`).toBe(false);
    } finally {
      await dir.cleanup();
    }
  });
});

/** A port nothing listens on: one the system just gave out free, and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
