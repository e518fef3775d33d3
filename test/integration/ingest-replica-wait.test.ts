import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import type { IngestResult } from '../../src/campaigns/ledger.js';
import type { RedisServer } from '../support/fault-redis-server.js';
import { LEDGER_TEST_NUMBER, feedAll, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { startMasterWithReplica } from '../support/master-replica.js';
import { freshPrefix } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

/**
 * REDIS_WAIT_REPLICAS: `campaign send` reports rows recorded once they are on the replicas. A
 * WAIT cut off by a dropped connection is sent again on a new one (after a failover, to the
 * promoted replica), where it vouches for nothing. The chunk's mark then tells whether the node
 * reached now holds the chunk: its answer stands if so, else the chunk is recorded there again.
 * A failover to a replica that never got the chunk is stood in for by putting the master's keys
 * back as they were before the chunk, while its WAIT blocks.
 */
describe("a chunk whose WAIT the connection's drop cut off (a master and its replica of our own)", () => {
  let master: RedisServer;
  let replica: RedisServer;
  let redis: Redis;
  let watcher: Redis;

  beforeAll(async () => {
    ({ master, replica } = await startMasterWithReplica());
    // As the CLI's connections are: commands wait through a reconnect, and those in flight are sent again.
    redis = new Redis(master.url, { maxRetriesPerRequest: null });
    watcher = new Redis(master.url);
  }, 30_000);

  afterAll(async () => {
    redis?.disconnect();
    watcher?.disconnect();
    await replica?.cleanup();
    await master?.cleanup();
  });

  /**
   * Records 3 rows of a new campaign while the replica is stopped, and drops the connection once
   * the WAIT blocks; `lose`: first puts the keys back as they were before the chunk.
   */
  async function recordCutOff(prefix: string, lose: boolean): Promise<{ ledger: RedisLedger; result: IngestResult }> {
    const ledger = new RedisLedger(redis, prefix, { waitReplicas: 1 });
    await ledger.createCampaign(ledgerTestDefinition('cut'));
    const before = await snapshot(watcher, prefix);
    const pid = replica.pid;
    if (pid === undefined) throw new Error('the replica has no PID');
    process.kill(pid, 'SIGSTOP');
    try {
      const recording = ledger.recordIngested('cut', LEDGER_TEST_NUMBER, [queuedRow(1), queuedRow(2), queuedRow(3)]);
      recording.catch(() => undefined);
      const waiting = await waitFor(async () => /^id=(\d+) .*cmd=wait\b/m.exec(String(await watcher.client('LIST')))?.[1], {
        what: "the chunk's WAIT blocked on the master",
      });
      if (lose) await restore(watcher, prefix, before);
      await watcher.client('KILL', 'ID', waiting);
      process.kill(pid, 'SIGCONT');
      return { ledger, result: await recording };
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  }

  it('the node kept the chunk: its first answer stands, and nothing is recorded twice', async () => {
    const prefix = freshPrefix('ingest-replica-kept');
    const { ledger, result } = await recordCutOff(prefix, false);
    expect(result.queued).toEqual([1, 2, 3]);
    expect((await ledger.status('cut'))?.counts.queued).toBe(3);
    expect((await feedAll(ledger)).jobs.map((job) => job.row)).toEqual([1, 2, 3]);
  });

  it('the node never got the chunk: it is recorded there again, so the rows it reported are in the campaign', async () => {
    const prefix = freshPrefix('ingest-replica-lost');
    const { ledger, result } = await recordCutOff(prefix, true);
    expect(result.queued).toEqual([1, 2, 3]);
    expect((await ledger.status('cut'))?.counts.queued).toBe(3);
    expect((await feedAll(ledger)).jobs.map((job) => job.row)).toEqual([1, 2, 3]);
  });
});

/** Every key under `prefix`, dumped. */
async function snapshot(redis: Redis, prefix: string): Promise<Map<string, Buffer>> {
  const dumps = new Map<string, Buffer>();
  for (const key of await redis.keys(`${prefix}*`)) {
    const dump = await redis.dumpBuffer(key);
    if (dump !== null) dumps.set(key, dump);
  }
  return dumps;
}

/** The keys under `prefix` as `dumps` had them, and no others. */
async function restore(redis: Redis, prefix: string, dumps: Map<string, Buffer>): Promise<void> {
  const now = await redis.keys(`${prefix}*`);
  if (now.length > 0) await redis.del(...now);
  for (const [key, dump] of dumps) await redis.restore(key, 0, dump);
}
