import { describe, expect, it } from 'vitest';
import { redisForRun, type RedisForRunSources } from '../../src/redis/private/redis-for-run.js';

const DEFAULT = 'redis://127.0.0.1:6379';

/** Sources whose probe answers `listening`; records what was probed and whether a private Redis started or stopped. */
function sources(env: Record<string, string | undefined>, listening: boolean) {
  const seen = { probed: [] as string[], started: 0, stopped: 0 };
  const s: RedisForRunSources = {
    env,
    defaultUrl: DEFAULT,
    listens: (url) => {
      seen.probed.push(url);
      return Promise.resolve(listening);
    },
    startPrivate: () => {
      seen.started++;
      return Promise.resolve({
        url: 'redis://127.0.0.1:41234',
        description: 'redis-server from the PATH (/usr/bin/redis-server, pid 4242) on 127.0.0.1:41234',
        stop: () => {
          seen.stopped++;
          return Promise.resolve();
        },
      });
    },
  };
  return { s, seen };
}

describe('redisForRun', () => {
  it('REDIS_URL set: uses it as every command does, probes nothing, starts nothing, and never prints its password', async () => {
    const { s, seen } = sources({ REDIS_URL: 'redis://:secret@redis.internal:6380' }, false);
    const redis = await redisForRun(s);
    expect(redis.url).toBeUndefined();
    expect(redis.line).toBe('Redis: redis://***@redis.internal:6380 (REDIS_URL).');
    expect(seen).toStrictEqual({ probed: [], started: 0, stopped: 0 });
  });

  it('REDIS_CLUSTER_NODES set: uses the cluster', async () => {
    const { s, seen } = sources({ REDIS_CLUSTER_NODES: '127.0.0.1:7000' }, false);
    const redis = await redisForRun(s);
    expect(redis.url).toBeUndefined();
    expect(redis.line).toContain('REDIS_CLUSTER_NODES');
    expect(seen.started).toBe(0);
  });

  it('REDIS_URL unset (or blank) and something listens at the default address: uses it', async () => {
    for (const env of [{}, { REDIS_URL: '  ' }]) {
      const { s, seen } = sources(env, true);
      const redis = await redisForRun(s);
      expect(redis.url).toBe(DEFAULT);
      expect(seen.probed).toStrictEqual([DEFAULT]);
      expect(seen.started).toBe(0);
    }
  });

  it('nothing there: starts a private Redis, says which in one line, and stop() stops it', async () => {
    const { s, seen } = sources({}, false);
    const redis = await redisForRun(s);
    expect(redis.url).toBe('redis://127.0.0.1:41234');
    expect(redis.line).toBe(
      'Redis: nothing answers at redis://127.0.0.1:6379, so this run started its own: ' +
        'redis-server from the PATH (/usr/bin/redis-server, pid 4242) on 127.0.0.1:41234; it is stopped when the run ends.',
    );
    expect(seen.stopped).toBe(0);
    await redis.stop();
    expect(seen.stopped).toBe(1);
  });
});
