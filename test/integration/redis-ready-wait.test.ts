import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { readyWithin } from '../../src/redis/redis-connection.js';
import { redisUrl } from '../support/redis.js';

/**
 * readyWithin, as every request and loop of `serve` calls it while Redis is away: many waits at
 * once hold one listener on the connection (not one each: past ten, Node warns of a leak in
 * every log), each ends at its own bound, and all end when the connection is up.
 */
const opened: Redis[] = [];
afterEach(() => {
  for (const redis of opened.splice(0)) redis.disconnect();
});

function failFast(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  redis.on('error', () => undefined);
  opened.push(redis);
  return redis;
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('readyWithin', () => {
  it('twenty waits on a connection to nothing hold one ready listener, and each ends at its bound', async () => {
    const redis = failFast(`redis://127.0.0.1:${await unusedPort()}`);
    const before = redis.listenerCount('ready');
    const waits = Array.from({ length: 20 }, () => readyWithin(redis, 300));
    expect(redis.listenerCount('ready')).toBe(before + 1);
    await Promise.all(waits);
    expect(redis.status).not.toBe('ready');
  });

  it('every wait ends when the connection comes up, and the shared listener goes with it', async () => {
    const redis = failFast(redisUrl());
    const before = redis.listenerCount('ready');
    await Promise.all(Array.from({ length: 20 }, () => readyWithin(redis, 10_000)));
    expect(redis.status).toBe('ready');
    expect(redis.listenerCount('ready')).toBe(before);
  });
});
