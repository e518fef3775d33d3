import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CampaignControls } from '../../src/campaigns/campaign-controls.js';
import { sendJobId, type SendJob } from '../../src/campaigns/send-job.js';
import { silentLogger } from '../../src/logging/logger.js';
import { BullSendQueue } from '../../src/queue/send-queue.js';
import { RedisLedger } from '../../src/redis/redis-ledger.js';
import { phoneNumber } from '../support/csv-files.js';
import { ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * The queue sweep of `campaign pause` and `campaign cancel` (src/queue/waiting-sweep.ts),
 * on a real Redis with real BullMQ queues and no worker: which jobs leave the wait list and
 * the delayed set, what is set aside in the ledger, and that other campaigns' jobs (one
 * whose ID starts with this campaign's) stay exactly where they were. Checked through
 * BullMQ's own API, so a BullMQ upgrade that moves its keys fails here.
 */

const PHONE_NUMBER_ID = '106540352242922';

const job = (id: string, row: number): SendJob => ({ campaignId: id, row, to: phoneNumber(row), values: [`Name${row}`] });
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('queue sweep for pause and cancel (real Redis, real BullMQ)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  let queue: BullSendQueue;
  let controls: CampaignControls;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('sweep');
    ledger = new RedisLedger(redis, prefix);
    queue = new BullSendQueue({ connection: redis, prefix, phoneNumberId: PHONE_NUMBER_ID, attempts: 3, backoffMs: 50, logger: silentLogger() });
    controls = new CampaignControls({ ledger, queueFor: () => queue });
  });

  afterEach(async () => {
    await queue.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  const campaign = (id: string, rows: number): Promise<void> => ingestQueuedCampaign(ledger, id, rows);

  async function delayed(id: string, rows: number[]): Promise<void> {
    await queue.queue.addBulk(rows.map((row) => ({ name: 'send', data: job(id, row), opts: { jobId: sendJobId(id, row), delay: 60_000 } })));
  }

  const waitingIds = async (): Promise<string[]> => (await queue.queue.getWaiting(0, -1)).map((j) => j.id ?? '?');

  it('pause: every waiting and delayed job of the campaign is set aside with its payload and leaves the queue; another campaign’s stay, in order', async () => {
    await campaign('sw', 2510);
    await campaign('sw-1', 300);
    // Interleaved in the wait list, across more than two sweep windows of 1,000 entries.
    await queue.enqueue(range(1, 1000).map((row) => job('sw', row)));
    await queue.enqueue(range(1, 300).map((row) => job('sw-1', row)));
    await queue.enqueue(range(1001, 2500).map((row) => job('sw', row)));
    await delayed('sw', range(2501, 2510));
    // `sw-1-r1` will be campaign sw's row 1 after resume: the other campaign's IDs are `sw-1-<row>`.
    const isOther = (id: string): boolean => /^sw-1-\d+$/.test(id);
    const othersBefore = (await waitingIds()).filter(isOther);
    expect(othersBefore).toHaveLength(300);

    const progress: number[] = [];
    const result = await controls.pause('sw', 'test', (p) => progress.push(p.scanned));

    expect(result).toEqual({ alreadyPaused: false, setAside: 2510 });
    expect(await waitingIds()).toEqual(othersBefore);
    expect(await queue.queue.getDelayedCount()).toBe(0);
    expect(await queue.queue.getJob(sendJobId('sw', 1))).toBeUndefined();
    expect(await queue.queue.getJob(sendJobId('sw', 2505))).toBeUndefined();
    expect(await redis.exists(`${prefix}:send-${PHONE_NUMBER_ID}:${sendJobId('sw', 7)}`)).toBe(0);
    // Progress came window by window and reached every entry that was in the queue.
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(progress.at(-1)).toBe(2810);

    // Set aside exactly as a worker's claim would: owner 1, the job kept for resume.
    const setAside = new Map<number, SendJob>();
    let cursor = '0';
    do {
      const page = await ledger.takeRequeued('sw', cursor);
      cursor = page.cursor;
      for (const entry of page.entries) setAside.set(entry.row, entry.job);
    } while (cursor !== '0');
    expect(setAside.size).toBe(2510);
    expect(setAside.get(2505)).toEqual({ ...job('sw', 2505), requeue: 1 });
    expect((await ledger.status('sw'))?.counts).toMatchObject({ queued: 2510, sending: 0 });
    expect((await ledger.status('sw-1'))?.state).toBe('running');

    // Resume puts every row back under its new job ID.
    const requeueProgress: { enqueued: number; total: number }[] = [];
    expect(await controls.resume('sw', (p) => requeueProgress.push(p))).toEqual({ wasPaused: true, requeued: 2510 });
    expect(requeueProgress.at(-1)).toEqual({ enqueued: 2510, total: 2510 });
    const after = await waitingIds();
    expect(after.filter(isOther)).toEqual(othersBefore);
    expect(after.filter((id) => /^sw-\d+-r1$/.test(id))).toHaveLength(2510);
  });

  it('a running campaign: only jobs with nothing to do leave (row answered, or owned by a newer job); the rest stay untouched', async () => {
    await campaign('run', 20);
    await queue.enqueue(range(1, 20).map((row) => job('run', row)));
    // Rows 1-5 answered (their jobs are duplicates now), row 6 owned by a newer job.
    for (const row of range(1, 5)) {
      await ledger.claim(job('run', row));
      await ledger.settle(job('run', row), { status: 'sent', wamid: `wamid.${row}` });
    }
    await ledger.pause('run', 'x');
    expect(await ledger.parkWaiting('run', [job('run', 6)])).toHaveLength(1);
    await ledger.resume('run');

    const result = await queue.sweep('run');

    expect(result).toEqual({ setAside: 0, removed: 6 });
    expect((await waitingIds()).sort()).toEqual(range(7, 20).map((row) => sendJobId('run', row)).sort());
    expect((await ledger.status('run'))?.counts).toMatchObject({ sent: 5, queued: 15 });
  });

  it('cancel: rows cancelled and every job of the campaign gone from the queue; the other campaign’s jobs stay', async () => {
    await campaign('cx', 1500);
    await campaign('other', 10);
    await queue.enqueue(range(1, 1500).map((row) => job('cx', row)));
    await queue.enqueue(range(1, 10).map((row) => job('other', row)));

    expect(await controls.cancel('cx')).toEqual({ cancelled: 1500, removedJobs: 1500 });
    expect((await waitingIds()).sort()).toEqual(range(1, 10).map((row) => sendJobId('other', row)).sort());
    expect((await ledger.status('cx'))?.counts).toMatchObject({ cancelled: 1500, queued: 0 });
  });
});
