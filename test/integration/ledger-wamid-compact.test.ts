import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { metaWamid } from '../../src/cloud-api/wamid-shape.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import { loadLuaInclude } from '../../src/redis/lua-scripts.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { unpackedHexId } from '../../src/redis/ledger/row-codec.js';
import { wamidKeepArgs } from '../../src/redis/ledger/wamid-compact.js';
import { storedWamid, type StoredRow } from '../../src/redis/ledger/stored-row.js';
import { newWamid } from '../../src/sandbox/ids.js';
import { feedAll, LEDGER_TEST_NUMBER as NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { TestClock } from '../support/test-clock.js';
import { storedRowOf } from '../support/stored-rows.js';

/**
 * A row's message ID kept small (src/redis/ledger/wamid-compact.ts decodes it, includes/wamid-compact.lua keeps it) on
 * a real Redis: an ID in Meta's shape for the row's own digits is stored as its hex ID, any other as it came, and every reader
 * (rows and the report, statuses through the message-ID index, purge) gets the very same ID back.
 */

const ID = 'compact-campaign';
const EXAMPLE = 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3N0EzRUZGNUQ3RTBDMkI0NjkA';
const OWN = metaWamid('4915110000001', '77A3EFF5D7E0C2B469');

/** OWN with its record's bytes edited: still base64, no longer Meta's shape. */
function edited(edit: (record: Buffer) => Buffer): string {
  return `wamid.${edit(Buffer.from(OWN.slice(6), 'base64')).toString('base64')}`;
}

/** Row phone → the ID it is answered with, and whether the row should keep only the hex ID. */
const CASES: { phone: string; wamid: string; compact: boolean; why: string }[] = [
  { phone: '+16503879439', wamid: EXAMPLE, compact: true, why: "Meta's example, its own digits" },
  { phone: '+4915110000001', wamid: OWN, compact: true, why: 'padded base64 (13 digits)' },
  { phone: '+4915110000002', wamid: newWamid('4915110000002'), compact: true, why: "the sandbox's" },
  { phone: '+491511000003', wamid: metaWamid('491511000003', 'abc123xyz'), compact: true, why: 'any letters and digits' },
  { phone: '+4915110000004', wamid: metaWamid('4915110000005', '77A3EFF5D7E0C2B469'), compact: false, why: 'other digits' },
  { phone: '+4915110000001', wamid: edited((r) => Buffer.concat([r, Buffer.from([0])])), compact: false, why: 'a byte more' },
  {
    phone: '+4915110000001',
    wamid: edited((r) => Buffer.concat([r.subarray(0, -1), Buffer.from([1])])),
    compact: false,
    why: 'another end',
  },
  { phone: '+4915110000001', wamid: edited((r) => Buffer.from(r).fill(0x12, 19, 20)), compact: false, why: 'another kind' },
  { phone: '+4915110000001', wamid: OWN.replace(/=+$/, ''), compact: false, why: 'padding left off' },
  { phone: '+4915110000001', wamid: `${OWN.slice(0, -2)}B=`, compact: false, why: 'stray bits in the last character' },
  { phone: '+4915110000001', wamid: `${OWN.slice(0, 20)}=${OWN.slice(21)}`, compact: false, why: "an '=' inside" },
  { phone: '+4915110000001', wamid: `${OWN.slice(0, -2)}=A`, compact: false, why: "an '=' before the last character" },
  { phone: '+4915110000001', wamid: newWamid('4915110000001', 'received'), compact: false, why: "a user's message" },
  { phone: '+4915110000001', wamid: metaWamid('4915110000001', 'AB-CD'), compact: false, why: 'a hex ID with other characters' },
  { phone: '+4915110000001', wamid: metaWamid('4915110000001', ''), compact: false, why: 'an empty hex ID' },
  { phone: '+16473777775', wamid: 'wamid.HBgLMTY0NzM3Nzc3NzUVAgARGBI5QTNEQTA2RjdGMEY4RTJHAA==', compact: false, why: 'a length that lies' },
  { phone: '+4915110000001', wamid: 'wamid.first', compact: false, why: 'not base64' },
  { phone: '+4915110000001', wamid: `${OWN}${'A'.repeat(100_000)}`, compact: false, why: 'far too long to decode' },
  { phone: '+4915110000001', wamid: 'w1', compact: false, why: 'no prefix' },
];

describe('RedisLedger message IDs stored small (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('ledger-wamid-compact');
    ledger = new RedisLedger(redis, prefix, { clock: TestClock.stopped() });
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  /** Ingests one row per phone (rows 1..n), feeds and claims them all. */
  async function campaign(phones: string[]) {
    await ledger.createCampaign(ledgerTestDefinition(ID));
    await ledger.recordIngested(
      ID,
      NUMBER,
      phones.map((phone, i) => queuedRow(i + 1, phone)),
    );
    await ledger.finishIngest(ID);
    const { jobs } = await feedAll(ledger, NUMBER);
    for (const job of jobs) expect((await ledger.claim(job, NUMBER)).outcome).toBe('claimed');
    return jobs.sort((a, b) => a.row - b.row);
  }

  async function records(): Promise<RowRecord[]> {
    const all: RowRecord[] = [];
    for await (const page of ledger.rows(ID)) all.push(...page);
    return all.sort((a, b) => a.row - b.row);
  }

  async function stored(row: number): Promise<StoredRow> {
    return (await storedRowOf(redis, campaignLedgerKeys(prefix, NUMBER, ID).rows, row)) ?? ({} as StoredRow);
  }

  it('keeps the hex ID of an ID in Meta’s shape for the row’s digits, any other as it came; reads give each back', async () => {
    const jobs = await campaign(CASES.map((c) => c.phone));
    for (const [i, job] of jobs.entries()) await ledger.settle(job, { status: 'sent', wamid: CASES[i]?.wamid ?? '' }, NUMBER);

    expect((await records()).map((r) => r.wamid)).toEqual(CASES.map((c) => c.wamid));
    for (const [i, c] of CASES.entries()) {
      const row = await stored(i + 1);
      expect({ why: c.why, w: row.w, m: row.m !== undefined }).toEqual({ why: c.why, w: c.compact ? undefined : c.wamid, m: c.compact });
    }
    expect((await stored(2)).m).toBe('77A3EFF5D7E0C2B469');

    // Statuses find every row through the message-ID index by the ID as Meta sends it.
    const at = Date.now();
    const updates = CASES.map((c) => ({ phoneNumberId: NUMBER, wamid: c.wamid, kind: 'delivered' as const, at }));
    const outcomes = await ledger.applyStatuses(updates);
    expect(outcomes.map((o) => o.outcome)).toEqual(CASES.map(() => 'applied'));
    expect((await records()).map((r) => [r.wamid, r.deliveredAt])).toEqual(CASES.map((c) => [c.wamid, at]));

    // Purge forgets each row's index entry: it reads the ID back from the row.
    const purged = await ledger.purge(ID);
    expect(purged).toMatchObject({ rows: CASES.length, wamids: CASES.length });
  });

  it('a row found by its callback data keeps the status’s ID small, and a later ID replaces neither', async () => {
    const jobs = await campaign(['+16503879439', '+4915110000001']);
    for (const job of jobs) await ledger.settle(job, { status: 'unknown', errorCode: 'TIMEOUT', errorDetail: 'no answer' }, NUMBER);
    const at = Date.now();
    await ledger.applyStatuses([
      { phoneNumberId: NUMBER, wamid: EXAMPLE, kind: 'sent', at, callbackData: `${ID}/1` },
      { phoneNumberId: NUMBER, wamid: 'wamid.first', kind: 'sent', at, callbackData: `${ID}/2` },
      { phoneNumberId: NUMBER, wamid: OWN, kind: 'sent', at, callbackData: `${ID}/2` },
    ]);
    expect((await records()).map((r) => [r.status, r.wamid])).toEqual([
      ['sent', EXAMPLE],
      ['sent', 'wamid.first'],
    ]);
    expect(await stored(1)).toMatchObject({ m: '77A3EFF5D7E0C2B469' });
    expect((await stored(1)).w).toBeUndefined();
    const read = await ledger.applyStatuses([{ phoneNumberId: NUMBER, wamid: EXAMPLE, kind: 'read', at }]);
    expect(read.map((o) => o.outcome)).toEqual(['applied']);
    expect((await records())[0]).toMatchObject({ wamid: EXAMPLE, readAt: at });
  });

  it("agrees with the TypeScript rebuild for the sandbox's IDs of every length of digits (7–15: all three paddings)", async () => {
    const script = `${loadLuaInclude('wamid-compact')}
      local out = {}
      for i = 1, #ARGV, 4 do
        local rec = { p = ARGV[i + 1] }
        setRowWamid(rec, ARGV[i], ARGV[i + 2], ARGV[i + 3])
        out[#out + 1] = rec.m or ''
        out[#out + 1] = rec.w or ''
        out[#out + 1] = rowHasWamid(rec) and 1 or 0
      end
      return out`;
    const pairs: [string, string][] = [];
    for (let digits = 7; digits <= 15; digits++) {
      for (let k = 0; k < 20; k++) {
        const phone = `+${String(1 + k)}${'0123456789'.repeat(2)}`.slice(0, digits + 1);
        pairs.push([newWamid(phone.slice(1)), phone]);
      }
    }
    const args = pairs.flatMap(([wamid, phone]) => [wamid, phone, ...wamidKeepArgs(wamid)]);
    const out = (await redis.eval(script, 0, ...args)) as (string | number)[];
    for (const [i, [wamid, phone]] of pairs.entries()) {
      const [m, w, has] = out.slice(3 * i, 3 * i + 3);
      // The 18-digit hex ID kept as `~` and the base64url of its 9 bytes.
      expect({ wamid, m: String(m).length, w, has }).toEqual({ wamid, m: 13, w: '', has: 1 });
      expect(storedWamid({ p: phone, m: unpackedHexId(String(m)) })).toBe(wamid);
    }
    // 28 bytes around the digits: 54 characters for 7 digits, 58 for Meta's 11, 66 for 15; each padding.
    expect(new Set(pairs.map(([wamid]) => wamid.length))).toEqual(new Set([54, 58, 62, 66]));
    expect(new Set(pairs.map(([wamid]) => /=*$/.exec(wamid)?.[0]))).toEqual(new Set(['', '=', '==']));
  });
});
