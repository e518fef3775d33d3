import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SEND_QUEUE_EVENTS_KEPT, openSendQueue } from '../../src/queue/open-send-queue.js';
import { sendQueuePrefix } from '../../src/queue/queue-names.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * A number's send queue keeps SEND_QUEUE_EVENTS_KEPT of BullMQ's events, not BullMQ's 10,000
 * (nothing here reads them): every Queue of the product is opened by openSendQueue, since
 * each writes its setting to the queue's meta hash, where BullMQ's scripts read it.
 */
const NUMBER = '106540352242922';

describe("a send queue's events stream (real Redis)", () => {
  let redis: Redis;
  let prefix: string;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('queue-events');
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('is trimmed to about SEND_QUEUE_EVENTS_KEPT events', async () => {
    const connection = redis.duplicate({ maxRetriesPerRequest: null });
    const queue = openSendQueue(NUMBER, connection, prefix);
    try {
      const added = SEND_QUEUE_EVENTS_KEPT * 3;
      for (let i = 0; i < added; i += 500) {
        await queue.addBulk(Array.from({ length: 500 }, (_, k) => ({ name: 'send', data: { n: i + k } })));
      }
      const base = `${sendQueuePrefix(prefix, NUMBER)}:send-${NUMBER}`;
      expect(await redis.hget(`${base}:meta`, 'opts.maxLenEvents')).toBe(String(SEND_QUEUE_EVENTS_KEPT));
      // Trimmed as Redis trims with MAXLEN ~: whole nodes of the stream, so a little over the length asked.
      const length = await redis.xlen(`${base}:events`);
      expect(length).toBeGreaterThanOrEqual(SEND_QUEUE_EVENTS_KEPT);
      expect(length).toBeLessThan(SEND_QUEUE_EVENTS_KEPT * 1.5);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });

  it('is opened only by openSendQueue across the product', async () => {
    const src = join(import.meta.dirname, '../../src');
    const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const opening: string[] = [];
    for (const file of files) if ((await readFile(join(src, file), 'utf8')).includes('new Queue(')) opening.push(file);
    expect(opening).toEqual([join('queue', 'open-send-queue.ts')]);
  });
});
