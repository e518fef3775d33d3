import { describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { campaignLedgerKeys, sentGuardKeys } from '../../src/redis/ledger/ledger-keys.js';
import type { StoredRow } from '../../src/redis/ledger/stored-row.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER as NUMBER, feedAll, ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { guardEntries, testFingerprint } from '../support/sent-guard.js';
import { storedRowOf } from '../support/stored-rows.js';
import { ledgersPerTest, type TestLedger } from '../support/test-ledger.js';

/**
 * The duplicate guard at a claim (includes/guard-claim.lua), on a real Redis: a message the
 * guard has not seen is recorded by one HSETNX, a repeat is found where that finds an entry, and
 * entries an earlier build keyed by the fingerprint's characters are still looked up for a
 * window after this build's first claim on a number whose guard was there already.
 */

const HOUR = 3_600_000;
const WINDOW_MS = 24 * HOUR;
const open = ledgersPerTest('guard-claim');

/** A campaign of `queued` rows whose messages have these fingerprints (of the product's shape), fed. */
async function campaign(t: TestLedger, id: string, fingerprints: readonly string[]): Promise<SendJob[]> {
  await t.ledger.createCampaign(ledgerTestDefinition(id));
  await t.ledger.recordIngested(
    id,
    NUMBER,
    fingerprints.map((fingerprint, i) => ({
      row: i + 1,
      phone: phoneNumber(i + 1),
      status: 'queued' as const,
      message: { values: ['Ana'], headerLink: undefined, fingerprint },
    })),
  );
  await t.ledger.finishIngest(id);
  return (await feedAll(t.ledger)).jobs.filter((j) => j.campaignId === id).sort((a, b) => a.row - b.row);
}

async function stored(t: TestLedger, id: string, row: number): Promise<StoredRow> {
  return (await storedRowOf(t.redis, campaignLedgerKeys(t.prefix, NUMBER, id).rows, row)) ?? ({} as StoredRow);
}

describe('the duplicate guard at a claim (real Redis)', () => {
  it("records a message it has not seen, and finds another row's claim of the same message as a repeat", async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const [same, other] = [testFingerprint('same'), testFingerprint('other')];
    // Both campaigns are ingested before either claims: the claim, not the ingest, meets the repeat.
    const first = await campaign(t, 'first', [same, other]);
    const second = await campaign(t, 'second', [same]);
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    const now = t.clock.now();

    expect((await t.ledger.claim(first[0] as SendJob)).outcome).toBe('claimed');
    // A guard this build made: nothing in it can be keyed otherwise, so no window of looking up other keys.
    expect(await t.redis.hget(`${sent}:map`, '#text-until')).toBe(String(now));
    expect((await t.ledger.claim(first[1] as SendJob)).outcome).toBe('claimed');
    expect(await guardEntries(t.redis, sent)).toEqual({
      [same.slice(0, 16)]: `first/1/${now}`,
      [other.slice(0, 16)]: `first/2/${now}`,
    });
    expect(await t.redis.hget(`${sent}:map`, 'count')).toBe('2');

    t.clock.advance(HOUR);
    expect(await t.ledger.claim(second[0] as SendJob)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    expect(await stored(t, 'second', 1)).toMatchObject({ s: 'skipped', c: 'ALREADY_SENT' });
    expect((await stored(t, 'second', 1)).d).toMatch(/^campaign first row 1 sent the same message .* 1\.0 h ago/);
    // The repeat wrote nothing: the entry still names the first send.
    expect((await guardEntries(t.redis, sent))[same.slice(0, 16)]).toBe(`first/1/${now}`);
    expect(await t.redis.hget(`${sent}:map`, 'count')).toBe('2');
  });

  it('sends a repeat with --allow-repeat, and past the window, and then names the new send', async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const same = testFingerprint('same');
    const first = await campaign(t, 'first', [same]);
    const again = await campaign(t, 'again', [same]);
    const later = await campaign(t, 'later', [same]);
    await t.ledger.allowRepeat('again');
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    const entry = async () => (await guardEntries(t.redis, sent))[same.slice(0, 16)];

    expect((await t.ledger.claim(first[0] as SendJob)).outcome).toBe('claimed');
    t.clock.advance(HOUR);
    expect((await t.ledger.claim(again[0] as SendJob)).outcome).toBe('claimed');
    expect(await entry()).toBe(`again/1/${t.clock.now()}`);
    t.clock.advance(WINDOW_MS);
    expect((await t.ledger.claim(later[0] as SendJob)).outcome).toBe('claimed');
    expect(await entry()).toBe(`later/1/${t.clock.now()}`);
    expect(await t.redis.hget(`${sent}:map`, 'count')).toBe('1');
  });

  it("keeps looking up entries an earlier build keyed by the fingerprint's characters for a window after its first claim", async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const [sixteen, whole, fresh] = [testFingerprint('sixteen'), testFingerprint('whole'), testFingerprint('fresh')];
    const jobs = await campaign(t, 'now', [sixteen, whole, fresh]);
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    const planted = t.clock.now() - HOUR;
    // A guard an earlier build wrote: one bucket, its entries keyed by the first 16 characters or all 22, as text.
    await t.redis.hset(`${sent}:map`, 'n', 1, 'count', 2);
    await t.redis.hset(`${sent}:map:0`, sixteen.slice(0, 16), `before/4/${planted}`, whole, `before/5/${planted}`);

    const until = String(t.clock.now() + WINDOW_MS);
    expect(await t.ledger.claim(jobs[0] as SendJob)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    expect(await t.redis.hget(`${sent}:map`, '#text-until')).toBe(until);
    expect((await stored(t, 'now', 1)).d).toMatch(/^campaign before row 4 sent the same message/);
    expect(await t.ledger.claim(jobs[1] as SendJob)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    expect((await stored(t, 'now', 2)).d).toMatch(/^campaign before row 5 sent the same message/);

    // A window later every entry such a build wrote is older than the window: they are no longer looked up.
    t.clock.advance(WINDOW_MS);
    await t.redis.hset(`${sent}:map:0`, fresh.slice(0, 16), `before/6/${t.clock.now()}`);
    expect((await t.ledger.claim(jobs[2] as SendJob)).outcome).toBe('claimed');
    expect(await t.redis.hget(`${sent}:map`, '#text-until')).toBe(until);
  });
});
