import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { BullSendQueue } from '../../src/queue/send-queue.js';
import { sendQueueName, sendQueuePrefix } from '../../src/queue/queue-names.js';
import { silentLogger } from '../../src/logging/logger.js';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import { purgeExpired, runPurge } from '../../src/app/campaign-purge.js';
import { ingestQueuedCampaign, ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { produceCampaign } from '../../src/campaigns/ingest/producer.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';
import { wamidsKey } from '../../src/redis/ledger/ledger-keys.js';
import { withLedgerCommands } from '../../src/redis/ledger/ledger-scripts.js';
import { ledgerPeek } from '../support/ledger-peek.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { storedRowCount } from '../support/stored-rows.js';

const NUMBER = '106540352242922';
const DAY = 86_400_000;

/**
 * `campaign purge` and RETENTION_DAYS on a real Redis and real BullMQ jobs: a finished
 * campaign's personal data goes (rows, kept jobs, index entries, finished jobs in the queue),
 * its counts stay, and nothing of another campaign is touched.
 */
describe('purge and retention (real Redis, BullMQ)', () => {
  let prefix: string;
  let context: AppContext;

  beforeEach(async () => {
    prefix = freshPrefix('purge');
    context = await openContext([], {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      RETENTION_DAYS: '30',
      DUPLICATE_WINDOW_HOURS: '0',
    });
  });

  afterEach(async () => {
    await removePrefix(context.redis, prefix);
    await context.close();
  });

  const job = (campaignId: string, row: number): SendJob => ({ campaignId, row });

  /** A campaign of `rows` rows: the first sent (with a wamid), the second failed, the rest cancelled. */
  async function finishedCampaign(id: string, rows = 4): Promise<void> {
    const { ledger } = context;
    await ingestQueuedCampaign(ledger, id, rows);
    // Rows are fed before they are claimed, as a worker's feeder does.
    await ledger.feed(NUMBER, { windowSize: 2, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
    await ledger.claim(job(id, 1), NUMBER);
    await ledger.settle(job(id, 1), { status: 'sent', wamid: `wamid.${id}.1` }, NUMBER);
    await ledger.claim(job(id, 2), NUMBER);
    await ledger.settle(job(id, 2), { status: 'failed', errorCode: '131026', errorDetail: 'undeliverable' }, NUMBER);
    await ledger.cancel(id);
  }

  /** Jobs of both campaigns through a real BullMQ worker: completed ones, and one failed. */
  async function finishedJobs(ids: string[]): Promise<void> {
    const queue = new BullSendQueue({
      connection: context.redis,
      prefix,
      phoneNumberId: NUMBER,
      attempts: 1,
      backoffMs: 1,
      logger: silentLogger(),
    });
    // Each campaign's rows 1 and 2 as jobs of one row, rows 3 and 4 as a group (the queue keeps it with the campaign once).
    await queue.enqueue(ids.flatMap((id) => [job(id, 1), job(id, 2), { group: `g.${id}-3.2`, rows: `${id} 3 0,${id} 4 0` }]));
    await queue.close();
    let finished = 0;
    await new Promise<void>((resolve) => {
      const worker = new Worker(
        sendQueueName(NUMBER),
        (j) => ((j.data as SendJob).row === 2 ? Promise.reject(new Error('refused')) : Promise.resolve('ok')),
        { connection: (context.redis as Redis).duplicate({ maxRetriesPerRequest: null }), prefix: sendQueuePrefix(prefix, NUMBER) },
      );
      const done = () => {
        if (++finished === ids.length * 3) void worker.close().then(resolve);
      };
      worker.on('completed', done);
      worker.on('failed', done);
    });
  }

  async function jobsOf(id: string): Promise<number> {
    const queue = new Queue(sendQueueName(NUMBER), { connection: context.redis, prefix: sendQueuePrefix(prefix, NUMBER) });
    const jobs = await queue.getJobs(['completed', 'failed', 'waiting', 'delayed']);
    await queue.close();
    return jobs.filter((j) => (j.data as SendJob).campaignId === id || (j.data as { campaign?: string }).campaign === id).length;
  }

  it('deletes the rows, backlog, index entries and finished jobs of that campaign only; the counts stay', async () => {
    await finishedCampaign('gone');
    await finishedCampaign('kept');
    await finishedJobs(['gone', 'kept']);
    const before = await context.ledger.status('gone');
    expect(before?.state).toBe('cancelled');
    expect(await jobsOf('gone')).toBe(3);

    const summary = await runPurge(context, 'gone');
    expect(summary).toMatchObject({ id: 'gone', rows: 4, wamids: 1, jobs: 3, alreadyPurged: false });

    for (const suffix of ['rows', 'pending', 'payloads', 'requeue', 'recent'])
      expect(await context.redis.exists(`${prefix}:{${NUMBER}}:campaign:gone:${suffix}`), suffix).toBe(0);
    expect(await ledgerPeek(context.redis, prefix).wamidOwner('wamid.gone.1', NUMBER)).toBeNull();
    expect(await ledgerPeek(context.redis, prefix).wamidOwner('wamid.kept.1', NUMBER)).toBe('kept/1');
    expect(await jobsOf('gone')).toBe(0);
    expect(await jobsOf('kept')).toBe(3);
    const after = await context.ledger.status('gone');
    expect(after?.counts).toStrictEqual(before?.counts);
    expect(after?.purgedAt).toBe(summary.purgedAt);
    expect(await storedRowCount(context.redis, `${prefix}:{${NUMBER}}:campaign:kept:rows`)).toBe(4);

    // Again: harmless, and says when it was done.
    expect(await runPurge(context, 'gone')).toMatchObject({ rows: 0, wamids: 0, jobs: 0, alreadyPurged: true, purgedAt: summary.purgedAt });
  });

  it('a purged campaign takes no more rows: send --campaign into it is refused', async () => {
    await finishedCampaign('purged');
    await runPurge(context, 'purged');
    const dir = await mkdtemp(join(tmpdir(), 'cw-purge-'));
    try {
      const file = join(dir, 'again.csv');
      await writeFile(file, 'phone\n+4915110000001\n');
      await expect(
        produceCampaign({ ledger: context.ledger }, { names: CLI_FIELD_NAMES, file, define: () => ledgerTestDefinition('purged') }),
      ).rejects.toMatchObject({ code: 'CAMPAIGN_PURGED' });
      expect((await context.ledger.status('purged'))?.counts.total).toBe(4);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a campaign that has not finished, and an unknown one', async () => {
    await ingestQueuedCampaign(context.ledger, 'live', 2);
    await expect(runPurge(context, 'live')).rejects.toMatchObject({
      code: 'CAMPAIGN_STATE_CONFLICT',
      message: expect.stringMatching(/it is running.*campaign cancel live/) as unknown,
    });
    expect(await storedRowCount(context.redis, `${prefix}:{${NUMBER}}:campaign:live:rows`)).toBe(2);
    await expect(runPurge(context, 'nope')).rejects.toMatchObject({ code: 'CAMPAIGN_NOT_FOUND' });
  });

  it('an interrupted purge run again finishes (the rows go last, purgedAt after them)', async () => {
    await finishedCampaign('half');
    // As if a purge had removed the index entry and died before deleting the rows.
    await withLedgerCommands(context.redis).cwForgetWamids(wamidsKey(prefix, NUMBER), 'half', 'wamid.half.1', 1);
    expect(await runPurge(context, 'half')).toMatchObject({ rows: 4, wamids: 0, alreadyPurged: false });
    expect(await storedRowCount(context.redis, `${prefix}:{${NUMBER}}:campaign:half:rows`)).toBe(0);
  });

  it('RETENTION_DAYS purges only what finished longer ago than the retention, once', async () => {
    await finishedCampaign('old');
    await finishedCampaign('recent');
    await ingestQueuedCampaign(context.ledger, 'running', 2);
    const finishedAt = (await context.ledger.status('old'))?.finishedAt ?? 0;
    await context.redis.hset(`${prefix}:{${NUMBER}}:campaign:old`, 'finishedAt', String(finishedAt - 31 * DAY));

    expect(await purgeExpired(context)).toStrictEqual(['old']);
    expect((await context.ledger.status('old'))?.purgedAt).toBeDefined();
    expect((await context.ledger.status('recent'))?.purgedAt).toBeUndefined();
    expect(await storedRowCount(context.redis, `${prefix}:{${NUMBER}}:campaign:recent:rows`)).toBe(4);
    expect(await purgeExpired(context)).toStrictEqual([]);
    // 40 days on, the other finished one is due too; the running one never is.
    expect(await purgeExpired(context, Date.now() + 40 * DAY)).toStrictEqual(['recent']);
    expect(await storedRowCount(context.redis, `${prefix}:{${NUMBER}}:campaign:running:rows`)).toBe(2);
  });
});
