import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROW_STATUSES } from '../../src/campaigns/campaign.js';
import { loadLuaInclude } from '../../src/redis/lua-scripts.js';
import { ROW_PRICING_CODES, decodeStoredRow, packedHexId } from '../../src/redis/ledger/row-codec.js';
import type { StoredRow } from '../../src/redis/ledger/stored-row.js';
import { isAppError } from '../../src/errors/app-error.js';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ingestQueuedCampaign, LEDGER_TEST_NUMBER } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { putStoredRow } from '../support/stored-rows.js';

/**
 * A row's record as the ledger stores it (src/redis/lua/includes/row-codec.lua writes it, in
 * Lua; src/redis/ledger/row-codec.ts reads it for the TypeScript side), on a real Redis: what
 * the Lua writes, both read back as it was, whatever fields and text a row holds; a record in
 * the earlier JSON form reads the same and is written back in the new one; a sent row is
 * stored in far fewer bytes than its JSON; and a damaged record fails a campaign's read loudly.
 */

/**
 * Each record (JSON in ARGV) written with encodeRow under KEYS[1]'s field i, its hex ID `m` packed as settle is given
 * it (packedHexId); 'again' also reads it back in Lua and writes that.
 */
const WRITE = `${loadLuaInclude('row-codec')}
for i = 2, #ARGV do
  local rec = cjson.decode(ARGV[i])
  local stored = encodeRow(rec)
  if ARGV[1] == 'again' then stored = encodeRow(decodeRow(stored)) end
  redis.call('HSET', KEYS[1], i - 1, stored)
end
return #ARGV - 1`;

/** The text stored at each field read with decodeRow and written again: an earlier form comes back in the new one. */
const REWRITE = `${loadLuaInclude('row-codec')}
for i = 1, #ARGV do
  redis.call('HSET', KEYS[1], ARGV[i], encodeRow(decodeRow(redis.call('HGET', KEYS[1], ARGV[i]))))
end
return #ARGV`;

const ms = fc.integer({ min: 1_700_000_000_000, max: 2_100_000_000_000 });
const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const small = fc.integer({ min: 0, max: 1_000_000 });

/** Any record a row may hold: every field of StoredRow, each there or not, statuses and categories known or not. */
const storedRow: fc.Arbitrary<StoredRow> = fc.record(
  {
    // E.164 is stored as a number, anything else (a leading 0, more than 15 digits, a user ID) as text.
    p: fc.oneof(fc.constant('+14155551042'), fc.stringMatching(/^\+\d{1,17}$/), fc.constant('+999999999999999'), text),
    s: fc.oneof(fc.constantFrom(...ROW_STATUSES), text) as fc.Arbitrary<StoredRow['s']>,
    a: small,
    k: small,
    w: text,
    // Meta's hex ID (18 upper-case digits: kept packed), or any other the row keeps as it is (metaWamidParts's alphabet).
    m: fc.oneof(fc.stringMatching(/^[0-9A-F]{18}$/), fc.stringMatching(/^([0-9A-F]{6})+$/), fc.stringMatching(/^[0-9A-Za-z]{1,64}$/)),
    c: text,
    d: text,
    v: fc.array(text, { maxLength: 6 }),
    h: text,
    f: text,
    z: small,
    dt: ms,
    rt: ms,
    ft: ms,
    ct: ms,
    cu: ms,
    rs: fc.constant(1),
    q: text,
    qt: ms,
    j: fc.json({ maxDepth: 2 }),
    jt: ms,
    kt: ms,
    kn: small,
    pc: fc.oneof(fc.constantFrom(...ROW_PRICING_CODES), text),
    pb: fc.constantFrom(0, 1),
  },
  { requiredKeys: ['p', 's'] },
);

/** A sent, delivered and read row of a two-value template, as a campaign leaves it. */
const SENT_ROW: StoredRow = {
  a: 1,
  p: '+14155551042',
  s: 'sent',
  ct: 1796038782778,
  dt: 1796038783000,
  rt: 1796038784000,
  pb: 1,
  pc: 'utility',
  m: 'A3972D094E00000006',
  v: ['Gustavo', 'A-10006'],
};

describe('row records as the ledger stores them (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let key: string;

  beforeAll(() => {
    redis = testRedis();
    prefix = freshPrefix('row-codec');
    key = `${prefix}:rows`;
  });

  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  async function written(records: readonly StoredRow[], again = false): Promise<(StoredRow | undefined)[]> {
    await redis.del(key);
    const packed = records.map((r) => (r.m === undefined ? r : { ...r, m: packedHexId(r.m) }));
    await redis.eval(WRITE, 1, key, again ? 'again' : 'once', ...packed.map((r) => JSON.stringify(r)));
    const raw = await redis.hmgetBuffer(key, ...records.map((_, i) => String(i + 1)));
    return raw.map((r) => (r === null ? undefined : decodeStoredRow(r)));
  }

  it('reads back every record the Lua writes, field for field, in TypeScript and in Lua', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(storedRow, { minLength: 1, maxLength: 20 }), async (records) => {
        expect(await written(records)).toEqual(records);
        expect(await written(records, true)).toEqual(records);
      }),
      { numRuns: 60 },
    );
  });

  it('reads a record of the earlier JSON form, and writes it back in the new form', async () => {
    await redis.del(key);
    const json = JSON.stringify(SENT_ROW);
    await redis.hset(key, 'old', json);
    expect(decodeStoredRow(Buffer.from(json))).toEqual(SENT_ROW);
    await redis.eval(REWRITE, 1, key, 'old');
    const raw = await redis.hgetBuffer(key, 'old');
    expect(raw?.[0]).not.toBe('{'.charCodeAt(0));
    expect(raw === null ? undefined : decodeStoredRow(raw)).toEqual(SENT_ROW);
  });

  it('keeps a sent row in under half the bytes of its JSON, its phone as a number', async () => {
    await written([SENT_ROW]);
    const bytes = await redis.hstrlen(key, '1');
    expect(bytes).toBeLessThan(JSON.stringify(SENT_ROW).length / 2);
    const raw = await redis.hgetBuffer(key, '1');
    expect(raw?.includes(SENT_ROW.p.slice(1))).toBe(false);
  });

  it("a campaign's rows: a record that reads as neither form fails the read with INTERNAL_ERROR naming the row", async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, 'codec-rows', 3);
    const read = async () => {
      const rows = [];
      for await (const page of ledger.rows('codec-rows')) rows.push(...page);
      return rows;
    };
    expect((await read()).map((r) => r.status)).toEqual(['queued', 'queued', 'queued']);
    await putStoredRow(redis, campaignLedgerKeys(prefix, LEDGER_TEST_NUMBER, 'codec-rows').rows, 2, Buffer.from([0xc1]));
    const error = await read().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAppError(error, 'INTERNAL_ERROR') ? error.message : error).toMatch(/row 2 of campaign codec-rows/);
  });

  it('answers undefined for bytes that are no record', () => {
    expect(decodeStoredRow(Buffer.from([0xc1]))).toBeUndefined();
    expect(decodeStoredRow(Buffer.from('{not json'))).toBeUndefined();
    expect(decodeStoredRow(Buffer.from([0x05]))).toBeUndefined();
  });
});
