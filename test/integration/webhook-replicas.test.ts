import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { RedisWebhookInbox } from '../../src/webhooks/webhook-inbox.js';
import type { RedisServer } from '../support/fault-redis-server.js';
import { startMasterWithReplica } from '../support/master-replica.js';
import { LEDGER_TEST_NUMBER } from '../support/ledger-fixtures.js';
import { freshPrefix } from '../support/redis.js';

/**
 * With REDIS_WAIT_REPLICAS, a webhook's body is on the replicas before `serve` answers Meta, and
 * what applying it writes is on them before the inbox lets the body go: once answered, Meta does
 * not send it again, so a write a failover took back would be a status or a STOP lost for good.
 * A replica stopped by SIGSTOP holds the write back; the call may not resolve before it runs again.
 */
describe('webhook writes and REDIS_WAIT_REPLICAS (a master and its replica of our own)', () => {
  let master: RedisServer;
  let replica: RedisServer;
  let redis: Redis;

  beforeAll(async () => {
    ({ master, replica } = await startMasterWithReplica());
    redis = new Redis(master.url);
  }, 30_000);

  afterAll(async () => {
    redis?.disconnect();
    await replica?.cleanup();
    await master?.cleanup();
  });

  /** Runs `call` with the replica stopped for 300 ms; true when `call` resolved only after it ran again. */
  async function waitedForReplica(call: () => Promise<unknown>): Promise<boolean> {
    const pid = replica.pid;
    if (pid === undefined) throw new Error('the replica has no PID');
    let resumed = false;
    process.kill(pid, 'SIGSTOP');
    const resume = setTimeout(() => {
      resumed = true;
      process.kill(pid, 'SIGCONT');
    }, 300);
    try {
      await call();
      return resumed;
    } finally {
      clearTimeout(resume);
      process.kill(pid, 'SIGCONT');
    }
  }

  it('a signed body is on the replica before the inbox resolves (then Meta gets its 200)', async () => {
    const inbox = new RedisWebhookInbox(redis, freshPrefix('webhook-replicas'), { replicas: { replicas: 1 } });
    const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
    let answer: unknown;
    expect(await waitedForReplica(async () => (answer = await inbox.append(body, Date.now(), 'ab'.repeat(32))))).toBe(true);
    expect(answer).toStrictEqual({ outcome: 'stored' });
  });

  it('an inbound message (a STOP keyword) is on the replica before applyInbound resolves', async () => {
    const ledger = new RedisLedger(redis, freshPrefix('webhook-replicas'), { waitReplicas: 1 });
    const inbound = { phoneNumberId: LEDGER_TEST_NUMBER, waId: '4915110000001', wamid: 'wamid.in-1', at: Date.now(), optOut: true };
    expect(await waitedForReplica(() => ledger.applyInbound([inbound]))).toBe(true);
  });

  it('a user_preferences stop is on the replica before applyPreferences resolves', async () => {
    const ledger = new RedisLedger(redis, freshPrefix('webhook-replicas'), { waitReplicas: 1 });
    const stop = { phoneNumberId: LEDGER_TEST_NUMBER, waId: '4915110000002', value: 'stop' as const, at: Date.now() };
    expect(await waitedForReplica(() => ledger.applyPreferences([stop]))).toBe(true);
  });
});
