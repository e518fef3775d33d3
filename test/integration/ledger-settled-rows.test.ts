import { describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { campaignLedgerKeys, sentGuardKeys, wamidsKey } from '../../src/redis/ledger/ledger-keys.js';
import type { StoredRow } from '../../src/redis/ledger/stored-row.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER as NUMBER, feedAll, ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { ledgersPerTest, type TestLedger } from '../support/test-ledger.js';

/**
 * What a settled row keeps in Redis, on a real Redis: the message-ID index in small hashes
 * (and entries of the older one-hash layout still found), the duplicate guard's keys expiring a
 * window after their newest entry, rows that end unsent without their message, and delivered
 * rows without their fingerprint but with their values (retarget reads them).
 */

const ID = 'settled';
const HOUR = 3_600_000;
const WINDOW_MS = 24 * HOUR;
const open = ledgersPerTest('ledger-settled');

async function campaign(t: TestLedger, rows: number): Promise<SendJob[]> {
  await t.ledger.createCampaign(ledgerTestDefinition(ID));
  await t.ledger.recordIngested(
    ID,
    NUMBER,
    Array.from({ length: rows }, (_, i) => ({
      row: i + 1,
      phone: phoneNumber(i + 1),
      status: 'queued' as const,
      message: { values: ['Ana', `A-${i + 1}`], headerLink: undefined, fingerprint: `fp-${i + 1}` },
    })),
  );
  await t.ledger.finishIngest(ID);
  return (await feedAll(t.ledger)).jobs.sort((a, b) => a.row - b.row);
}

async function stored(t: TestLedger, row: number): Promise<StoredRow> {
  const json = await t.redis.hget(campaignLedgerKeys(t.prefix, NUMBER, ID).rows, String(row));
  return JSON.parse(json ?? '{}') as StoredRow;
}

async function sendAll(t: TestLedger, jobs: readonly SendJob[]): Promise<void> {
  for (const job of jobs) {
    expect((await t.ledger.claim(job)).outcome).toBe('claimed');
    await t.ledger.settle(job, { status: 'sent', wamid: `wamid.settled.${job.row}` });
  }
}

describe('Redis per settled row (real Redis)', () => {
  it('indexes message IDs in small hashes (listpacks) and finds their rows for statuses and replies', async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    await sendAll(t, await campaign(t, 3));
    const index = wamidsKey(t.prefix, NUMBER);
    expect(await t.redis.exists(index)).toBe(0);
    expect(await t.peek.wamidCount()).toBe(3);
    expect(await t.peek.wamidOwner('wamid.settled.2')).toBe(`${ID}/2`);
    const buckets = (await t.redis.keys(`${index}:*`)).filter((key) => /:[0-9a-f]{4}$/.test(key));
    for (const bucket of buckets) expect(await t.redis.object('ENCODING', bucket)).toBe('listpack');
    const [status] = await t.ledger.applyStatuses([{ wamid: 'wamid.settled.2', kind: 'read', at: 1000, phoneNumberId: NUMBER }]);
    expect(status?.outcome).toBe('applied');
    const replies = await t.ledger.applyInbound([
      {
        phoneNumberId: NUMBER,
        waId: phoneNumber(3).slice(1),
        wamid: 'wamid.in.1',
        at: 2000,
        replyTo: 'wamid.settled.3',
        reply: 'Yes',
        optOut: false,
      },
    ]);
    expect(replies).toEqual([{ answeredRow: true }]);
    expect(await stored(t, 3)).toMatchObject({ q: 'Yes', qt: 2000 });
  });

  it('still finds entries an older version wrote to the one hash, and purge forgets them there', async () => {
    const t = open();
    await sendAll(t, await campaign(t, 2));
    // As the one-hash layout held it: message ID → "campaign/row".
    const index = wamidsKey(t.prefix, NUMBER);
    await t.redis.hset(index, 'wamid.older.1', `${ID}/1`);
    const [status] = await t.ledger.applyStatuses([{ wamid: 'wamid.older.1', kind: 'delivered', at: 1000, phoneNumberId: NUMBER }]);
    expect(status?.outcome).toBe('applied');
    expect((await stored(t, 1)).dt).toBe(1000);
    expect(await t.peek.wamidOwner('wamid.older.1')).toBe(`${ID}/1`);
  });

  it("gives the duplicate guard's keys a window to live from their newest entry, never a shorter one", async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const jobs = await campaign(t, 2);
    const { sent, sentAt } = sentGuardKeys(t.prefix, NUMBER);
    await t.ledger.claim(jobs[0] as SendJob);
    for (const key of [sent, sentAt]) {
      const ttl = await t.redis.pttl(key);
      expect(ttl).toBeGreaterThan(WINDOW_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
    }
    // A worker with a shorter window leaves the longer life as it is.
    const short = open({ duplicateWindowMs: HOUR });
    await short.redis.pexpire(sent, 2 * WINDOW_MS);
    await t.ledger.claim(jobs[1] as SendJob);
    expect(await t.redis.pttl(sent)).toBeGreaterThan(WINDOW_MS);
  });

  it('drops the message of a row that ends unsent at its claim, and the fingerprint of a delivered row (its values stay)', async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const jobs = await campaign(t, 2);
    await t.ledger.cancel(ID);
    expect((await t.ledger.claim(jobs[0] as SendJob)).outcome).toBe('settled');
    const cancelled = await stored(t, 1);
    expect(cancelled.s).toBe('cancelled');
    expect([cancelled.v, cancelled.f, cancelled.h]).toEqual([undefined, undefined, undefined]);

    const u = open({ duplicateWindowMs: WINDOW_MS });
    await sendAll(u, (await campaign(u, 1)).slice(0, 1));
    // Sent, not yet delivered: a failed status may still come, and then a retry needs both.
    expect(await stored(u, 1)).toMatchObject({ s: 'sent', f: 'fp-1', v: ['Ana', 'A-1'] });
    await u.ledger.applyStatuses([{ wamid: 'wamid.settled.1', kind: 'delivered', at: 1000, phoneNumberId: NUMBER }]);
    const delivered = await stored(u, 1);
    expect(delivered).toMatchObject({ s: 'sent', dt: 1000, v: ['Ana', 'A-1'] });
    expect(delivered.f).toBeUndefined();
    const [messages] = await collect(u.ledger.rowMessages(ID));
    expect(messages?.[0]?.values).toEqual(['Ana', 'A-1']);
  });
});

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(page);
  return all;
}
