import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/app-error.js';
import { startPrivateRedis, type PrivateRedis, type RedisStarter } from '../../src/redis/private/private-redis.js';
import { privateRedisStarters } from '../../src/redis/private/private-redis-starters.js';

/** A starter that records that it was tried, and starts or fails with `reason`. */
function starter(name: string, tried: string[], reason?: string): RedisStarter {
  return {
    name,
    start(): Promise<PrivateRedis> {
      tried.push(name);
      if (reason !== undefined) return Promise.reject(new Error(reason));
      return Promise.resolve({ url: `redis://127.0.0.1:7000/${name}`, description: name, stop: () => Promise.resolve() });
    },
  };
}

describe('startPrivateRedis', () => {
  it('returns the first starter that starts and tries none after it', async () => {
    const tried: string[] = [];
    const redis = await startPrivateRedis([starter('a', tried, 'not found'), starter('b', tried), starter('c', tried)]);
    expect(redis.description).toBe('b');
    expect(tried).toStrictEqual(['a', 'b']);
  });

  it('when none starts: REDIS_UNAVAILABLE naming each starter with its reason, on one line, and how to provide a Redis', async () => {
    const tried: string[] = [];
    const error = await startPrivateRedis([starter('a', tried, 'not found'), starter('b', tried, 'no\ncompiler')]).catch((e: unknown) => e);
    expect(tried).toStrictEqual(['a', 'b']);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('REDIS_UNAVAILABLE');
    expect((error as AppError).message).toContain('(a: not found; b: no compiler)');
    expect((error as AppError).message).toContain('set REDIS_URL');
    expect((error as AppError).message).not.toContain('\n');
  });
});

describe('privateRedisStarters', () => {
  it('tries a redis-server on the PATH, then redis-memory-server, then Docker through testcontainers', () => {
    expect(privateRedisStarters('/nowhere', () => undefined).map((s) => s.name)).toStrictEqual([
      'redis-server on the PATH',
      'redis-memory-server',
      'Docker through testcontainers',
    ]);
  });

  it('the first says "not found" when no directory of the PATH holds redis-server', async () => {
    const [onPath] = privateRedisStarters('/nowhere:/nor-here', () => undefined);
    await expect(onPath?.start()).rejects.toThrow(/^not found$/);
  });
});
