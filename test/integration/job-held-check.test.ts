import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobHeldCheck } from '../../src/queue/send-worker.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * A row whose request could not leave soon after its claim leaves only while its worker still
 * holds the job: BullMQ's lock, checked (and extended) through jobHeldCheck. Real BullMQ on real
 * Redis: held while the worker runs it; not once its lock key is gone, as a lapsed lock's is.
 */
describe('jobHeldCheck: whether this worker still holds a running job', () => {
  let redis: Redis;
  let prefix: string;
  let queue: Queue;
  let worker: Worker | undefined;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('job-held');
    queue = new Queue('held', { connection: redis, prefix });
  });

  afterEach(async () => {
    await worker?.close();
    await queue.close();
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('answers true while the lock is the worker’s, and false once it is gone', async () => {
    const answers = new Promise<{ held: boolean; lost: boolean; memo: boolean }>((resolve, reject) => {
      worker = new Worker(
        'held',
        async (job: Job, token?: string) => {
          const check = jobHeldCheck(job, token);
          const held = await check();
          // A lapsed lock leaves no key: the stalled-job check may hand the job to another worker.
          await redis.del(`${prefix}:held:${job.id}:lock`);
          const lost = await jobHeldCheck(job, token)();
          // A lock found held was extended: the same check answers from it for a moment.
          const memo = await check();
          resolve({ held, lost, memo });
        },
        { connection: redis, prefix, lockDuration: 10_000 },
      );
      worker.on('error', reject);
    });
    await queue.add('one', {});
    expect(await answers).toEqual({ held: true, lost: false, memo: true });
  });
});
