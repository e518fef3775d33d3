import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

const DEFAULT_URL = 'redis://127.0.0.1:6379';

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

function dockerAnswers(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds the Redis every integration test uses: REDIS_URL, else 127.0.0.1:6379, else a
 * testcontainers Redis where a Docker engine runs. Otherwise the run stops and says how to
 * provide one: integration tests are never skipped.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const candidates = [process.env.REDIS_URL, DEFAULT_URL].filter((u): u is string => u !== undefined && u !== '');
  for (const url of candidates) {
    if (await answers(url)) {
      project.provide('redisUrl', url);
      return undefined;
    }
  }
  if (dockerAnswers()) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer('redis:7-alpine').start();
    project.provide('redisUrl', container.getConnectionUrl());
    return async () => {
      await container.stop();
    };
  }
  throw new Error(
    `No Redis for the integration tests: nothing answers at ${candidates.join(' or ')} and no Docker engine runs. ` +
      'Start one (`docker compose up -d redis`, or `redis-server --port 6379`) or set REDIS_URL.',
  );
}
