import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';
import { DEFAULT_REDIS_URL } from '../../src/config/config.js';
import { startPrivateRedis } from '../../src/redis/private/private-redis.js';
import { privateRedisStarters } from '../../src/redis/private/private-redis-starters.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

async function answers(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1500 });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/**
 * Finds the Redis every integration test uses: REDIS_URL, else 127.0.0.1:6379, else a private
 * one started for this run as the demo starts it (redis-server on the PATH, redis-memory-server,
 * Docker through testcontainers) and stopped at the end. Otherwise the run stops and says how
 * to provide one: integration tests are never skipped.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const candidates = [process.env.REDIS_URL, DEFAULT_REDIS_URL].filter((u): u is string => u !== undefined && u !== '');
  for (const url of candidates) {
    if (await answers(url)) {
      project.provide('redisUrl', url);
      return undefined;
    }
  }
  const redis = await startPrivateRedis(privateRedisStarters(process.env.PATH ?? '', (line) => console.log(line)));
  console.log(`Integration tests: nothing answers at ${candidates.join(' or ')}, so they run on their own Redis: ${redis.description}.`);
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}
