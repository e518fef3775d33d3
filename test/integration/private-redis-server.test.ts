import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/files/find-on-path.js';
import { startRedisServer } from '../../src/redis/private/redis-server-process.js';
import { somethingListens } from '../../src/redis/private/redis-for-run.js';

/** The demo's and the test suite's first choice of a private Redis: a redis-server from the PATH. */
describe('startRedisServer', () => {
  it('starts one on a free loopback port that answers and persists nothing, and stop() ends its PID', async () => {
    const binary = findOnPath('redis-server', process.env.PATH ?? '');
    if (binary === undefined)
      throw new Error('redis-server is not on the PATH: install it (apt-get install redis-server), as .ci/run does');
    const redis = await startRedisServer(binary);
    const client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    try {
      expect(await client.ping()).toBe('PONG');
      expect(await client.config('GET', 'save')).toStrictEqual(['save', '']);
      expect(await client.config('GET', 'appendonly')).toStrictEqual(['appendonly', 'no']);
      expect(Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1])).toBe(redis.pid);
      expect(redis.description).toContain(`pid ${redis.pid}`);
    } finally {
      client.disconnect();
      await redis.stop();
    }
    expect(() => process.kill(redis.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }) as Error);
    expect(await somethingListens(redis.url)).toBe(false);
  });

  it('a binary that is missing or exits at once is refused, saying why', async () => {
    await expect(startRedisServer(process.execPath.replace(/node$/, 'node-missing'))).rejects.toThrow(/ENOENT/);
    await expect(startRedisServer('/bin/false')).rejects.toThrow(/exited before answering/);
  });
});
