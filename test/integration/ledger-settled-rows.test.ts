import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { campaignLedgerKeys, sentGuardKeys, wamidsKey } from '../../src/redis/ledger/ledger-keys.js';
import type { StoredRow } from '../../src/redis/ledger/stored-row.js';
import { withLedgerCommands } from '../../src/redis/ledger/ledger-scripts.js';
import { phoneNumber } from '../support/csv-files.js';
import { WAMID_BUCKET } from '../support/ledger-peek.js';
import { LEDGER_TEST_NUMBER as NUMBER, feedAll, ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { ledgersPerTest, type TestLedger } from '../support/test-ledger.js';
import { guardEntries, putGuardEntry, testFingerprint } from '../support/sent-guard.js';
import { storedRowOf } from '../support/stored-rows.js';

/**
 * What a settled row keeps in Redis, on a real Redis: the message-ID index in small hashes
 * (and entries of the older one-hash layout still found), the duplicate guard expiring a
 * window after their newest entry, rows that end unsent without their message, and delivered
 * rows without their fingerprint but with their values (retarget reads them).
 */

const ID = 'settled';
const HOUR = 3_600_000;
const WINDOW_MS = 24 * HOUR;
const open = ledgersPerTest('ledger-settled');
/** WAMID_BUCKET_FILL of src/redis/lua/includes/wamid-index.lua: the entries a bucket is given before the index widens. */
const WAMID_BUCKET_FILL = 64;

async function campaign(t: TestLedger, rows: number, id = ID): Promise<SendJob[]> {
  await t.ledger.createCampaign(ledgerTestDefinition(id));
  await t.ledger.recordIngested(
    id,
    NUMBER,
    Array.from({ length: rows }, (_, i) => ({
      row: i + 1,
      phone: phoneNumber(i + 1),
      status: 'queued' as const,
      message: { values: ['Ana', `A-${i + 1}`], headerLink: undefined, fingerprint: `fp-${i + 1}` },
    })),
  );
  await t.ledger.finishIngest(id);
  return (await feedAll(t.ledger)).jobs.filter((j) => j.campaignId === id).sort((a, b) => a.row - b.row);
}

async function stored(t: TestLedger, row: number, id = ID): Promise<StoredRow> {
  return (await storedRowOf(t.redis, campaignLedgerKeys(t.prefix, NUMBER, id).rows, row)) ?? ({} as StoredRow);
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
    const buckets = (await t.redis.keys(`${index}:*`)).filter((key) => WAMID_BUCKET.test(key));
    expect(buckets.length).toBeGreaterThan(0);
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

  it('keeps an index entry as one number (row × 1024 + handle), and as "handle/row" once handles pass 1024', async () => {
    const t = open({ duplicateWindowMs: 0 });
    const index = wamidsKey(t.prefix, NUMBER);
    const values = async () => {
      const buckets = (await t.redis.keys(`${index}:*`)).filter((key) => WAMID_BUCKET.test(key));
      return (await Promise.all(buckets.map((b) => t.redis.hvals(b)))).flat().sort();
    };
    await sendAll(t, await campaign(t, 2));
    const handle = Number(await t.redis.hget(campaignLedgerKeys(t.prefix, NUMBER, ID).campaign, 'wamidHandle'));
    expect(await values()).toEqual([String(1024 + handle), String(2 * 1024 + handle)]);
    // A number that has given 1,500 handles: the next campaign's entries name theirs as text, and are found the same.
    await t.redis.hset(`${index}:campaigns`, 'next', 1500);
    const [late] = await campaign(t, 1, 'late');
    expect((await t.ledger.claim(late as SendJob)).outcome).toBe('claimed');
    await t.ledger.settle(late as SendJob, { status: 'sent', wamid: 'wamid.late.1' });
    expect(await values()).toContain('1501/1');
    expect(await t.peek.wamidOwner('wamid.late.1')).toBe('late/1');
    expect(await t.peek.wamidOwner('wamid.settled.2')).toBe(`${ID}/2`);
  });

  it('widens its buckets as the index grows, finds entries of every width, and purge empties them all', async () => {
    const t = open();
    const rows = 3 * WAMID_BUCKET_FILL;
    await sendAll(t, await campaign(t, rows));
    const index = wamidsKey(t.prefix, NUMBER);
    const buckets = (await t.redis.keys(`${index}:*`)).filter((key) => WAMID_BUCKET.test(key));
    const widths = new Set(buckets.map((key) => /:w(\d+):\d+$/.exec(key)?.[1]));
    // 0 up to 64 entries, 1 up to 128, 2 after: each width's first entries went where the count sent them.
    expect([...widths].sort()).toEqual(['0', '1', '2']);
    expect(buckets.length).toBeLessThanOrEqual(1 + 2 + 4);
    expect(await t.peek.wamidCount()).toBe(rows);
    for (const row of [1, WAMID_BUCKET_FILL + 1, rows]) expect(await t.peek.wamidOwner(`wamid.settled.${row}`)).toBe(`${ID}/${row}`);
    const [status] = await t.ledger.applyStatuses([{ wamid: 'wamid.settled.1', kind: 'delivered', at: 1000, phoneNumberId: NUMBER }]);
    expect(status?.outcome).toBe('applied');
    expect((await t.ledger.purge(ID)).wamids).toBe(rows);
    expect(await t.peek.wamidCount()).toBe(0);
    expect(await t.redis.hget(`${index}:campaigns`, 'count')).toBe('0');
  });

  it('widens within one settle of many rows, and one batch of statuses finds entries of every width', async () => {
    const t = open();
    const rows = 3 * WAMID_BUCKET_FILL;
    const jobs = await campaign(t, rows);
    // At once: the claims and the answers each go to Redis as one script run, which reads the count and widths once.
    for (const claim of await Promise.all(jobs.map((job) => t.ledger.claim(job)))) expect(claim.outcome).toBe('claimed');
    await Promise.all(jobs.map((job) => t.ledger.settle(job, { status: 'sent', wamid: `wamid.settled.${job.row}` })));
    const index = wamidsKey(t.prefix, NUMBER);
    const buckets = (await t.redis.keys(`${index}:*`)).filter((key) => WAMID_BUCKET.test(key));
    expect(new Set(buckets.map((key) => /:w(\d+):\d+$/.exec(key)?.[1]))).toEqual(new Set(['0', '1', '2']));
    expect(await t.peek.wamidCount()).toBe(rows);
    expect(await t.redis.hget(`${index}:campaigns`, 'count')).toBe(String(rows));
    // Each width listed once, as it was first used.
    expect((await t.redis.hget(`${index}:campaigns`, 'widths'))?.trim().split(' ')).toEqual(['0', '1', '2']);
    const statuses = await t.ledger.applyStatuses(
      jobs.map((job) => ({ wamid: `wamid.settled.${job.row}`, kind: 'delivered' as const, at: 1000, phoneNumberId: NUMBER })),
    );
    expect(statuses.filter((status) => status.outcome === 'applied')).toHaveLength(rows);
  });

  it('still finds entries an older version wrote to its 65,536 buckets, and forgets them there', async () => {
    const t = open();
    await sendAll(t, await campaign(t, 2));
    const index = wamidsKey(t.prefix, NUMBER);
    // As that layout held it: the first 16 bits of the ID's SHA-1 name the bucket, the next 80 are the field.
    const digest = createHash('sha1').update('wamid.older.1').digest();
    await t.redis.hset(`${index}:${digest.subarray(0, 2).toString('hex')}`, digest.subarray(2, 12), `${ID}/1`);
    expect(await t.peek.wamidOwner('wamid.older.1')).toBe(`${ID}/1`);
    expect(await withLedgerCommands(t.redis).cwForgetWamids(index, ID, 'wamid.older.1', 1)).toBe(1);
    expect(await t.peek.wamidOwner('wamid.older.1')).toBeNull();
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

  it('gives the duplicate guard a window to live from their newest entry, never a shorter one', async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const jobs = await campaign(t, 2);
    const map = `${sentGuardKeys(t.prefix, NUMBER).sent}:map`;
    await t.ledger.claim(jobs[0] as SendJob);
    const keys = [map, ...(await t.redis.keys(`${map}:*`))];
    expect(keys.length).toBeGreaterThan(1);
    for (const key of keys) {
      const ttl = await t.redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(WINDOW_MS - 60_000);
      expect(ttl, key).toBeLessThanOrEqual(WINDOW_MS);
    }
    // A worker with a shorter window leaves the longer life as it is.
    const short = open({ duplicateWindowMs: HOUR });
    for (const key of keys) await short.redis.pexpire(key, 2 * WINDOW_MS);
    await t.ledger.claim(jobs[1] as SendJob);
    for (const key of keys) expect(await t.redis.pttl(key), key).toBeGreaterThan(WINDOW_MS);
  });

  it('keeps the guard in small hashes (listpacks) that split as it grows, each entry found where it went', async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    const now = t.clock.now();
    const planted = 2_000;
    for (let i = 0; i < planted; i++) await putGuardEntry(t.redis, sent, testFingerprint(`many-${i}`), `other/${i}/${now}`);
    const buckets = await t.redis.keys(`${sent}:map:*`);
    // 48 entries a bucket before a split (includes/bucket-map-write.lua): about 2,000 / 48.
    expect(buckets.length).toBe(Number(await t.redis.hget(`${sent}:map`, 'n')));
    expect(buckets.length).toBeGreaterThanOrEqual(Math.floor(planted / 48));
    for (const bucket of buckets) {
      expect(await t.redis.object('ENCODING', bucket), bucket).toBe('listpack');
      expect(await t.redis.hlen(bucket), bucket).toBeLessThanOrEqual(128);
    }
    expect(await t.redis.hget(`${sent}:map`, 'count')).toBe(String(planted));
    const entries = await guardEntries(t.redis, sent);
    expect(Object.keys(entries)).toHaveLength(planted);
    // Every planted message is found where its address names its bucket, after the splits that moved it.
    const lookups = Array.from({ length: planted }, (_, i) => ({ row: i + 1, fingerprint: testFingerprint(`many-${i}`) }));
    expect(await t.ledger.priorSends('second', NUMBER, lookups)).toHaveLength(planted);
    // And by the claim's own lookup.
    const jobs = await campaign(t, 1);
    await putGuardEntry(t.redis, sent, 'fp-1', `other/7/${now}`);
    expect(await t.ledger.claim(jobs[0] as SendJob)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    expect((await stored(t, 1)).c).toBe('ALREADY_SENT');
  });

  it('still finds a send in a guard an older version kept as one hash', async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const jobs = await campaign(t, 2);
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    await t.redis.hset(sent, 'fp-1', `older/3/${t.clock.now() - HOUR}`);
    expect(await t.ledger.claim(jobs[0] as SendJob)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    expect((await stored(t, 1)).d).toMatch(/^campaign older row 3 sent the same message/);
    expect((await t.ledger.claim(jobs[1] as SendJob)).outcome).toBe('claimed');
  });

  it('names a campaign in the guard by a short handle, packs an entry as bytes, and reads an entry written with ID and ms', async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const jobs = await campaign(t, 3);
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    // What an older version wrote in the map: the campaign's ID and decimal ms.
    await t.redis.hset(`${sent}:map`, 'n', 1, 'count', 1);
    await t.redis.hset(`${sent}:map:0`, 'fp-1', `older/3/${t.clock.now() - HOUR}`);
    expect(await t.ledger.claim(jobs[0] as SendJob)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    expect((await stored(t, 1)).d).toMatch(/^campaign older row 3 sent the same message .* 1\.0 h ago/);

    expect((await t.ledger.claim(jobs[1] as SendJob)).outcome).toBe('claimed');
    const raw = await t.redis.hgetBuffer(`${sent}:map:0`, 'fp-2');
    // The campaign's handle, and when the campaign last used it (seconds in base 36).
    const [handle, used] = (await t.redis.hget(`${sent}:map`, `c:${ID}`))?.split(' ') ?? [];
    expect(handle).toMatch(/^\d+$/);
    expect(used).toBe(Math.floor(t.clock.now() / 1000).toString(36));
    // Packed (includes/packed-value.lua): tag 3, the handle in a byte, the row in 3, the claim's ms in 6.
    const ms = Buffer.alloc(6);
    ms.writeUIntBE(t.clock.now(), 0, 6);
    expect(raw).toEqual(Buffer.concat([Buffer.from([3, Number(handle), 0, 0, 2]), ms]));
    expect(await t.redis.hget(`${sent}:map`, `h:${handle}`)).toBe(ID);
    // The entry names the campaign again when read: another campaign's row with the same message is told who sent it.
    await campaign(t, 2, 'other');
    expect(await stored(t, 2, 'other')).toMatchObject({ s: 'skipped', c: 'ALREADY_SENT' });
    expect((await stored(t, 2, 'other')).d).toMatch(new RegExp(`^campaign ${ID} row 2 sent the same message .* 0\\.0 h ago`));
  });

  it("drops a campaign's guard handle a window and a quarter after its last claim, and keeps one still in use", async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    const handles = async () => (await t.redis.hkeys(`${sent}:map`)).filter((f) => /^[ch]:/.test(f)).sort();
    const early = await campaign(t, 1, 'early');
    expect((await t.ledger.claim(early[0] as SendJob)).outcome).toBe('claimed');
    // Rows 2 to 4 (row 1 has early's message: skipped at ingest).
    const late = await campaign(t, 4, 'late');
    const lateHandle = async () => (await t.redis.hget(`${sent}:map`, 'c:late'))?.split(' ')[0];
    expect((await t.ledger.claim(late[0] as SendJob)).outcome).toBe('claimed');
    const kept = await lateHandle();
    expect(await handles()).toHaveLength(4);
    // A window later `early` has claimed nothing more and `late` claims again; a quarter window after, a claim looks them over.
    t.clock.advance(WINDOW_MS);
    expect((await t.ledger.claim(late[1] as SendJob)).outcome).toBe('claimed');
    expect(await handles()).toHaveLength(4);
    t.clock.advance(WINDOW_MS / 4 + 1000);
    expect((await t.ledger.claim(late[2] as SendJob)).outcome).toBe('claimed');
    expect(await handles()).toEqual(['c:late', `h:${kept}`]);
    expect(await lateHandle()).toBe(kept);
  });

  it("keys a guard entry by the 12 bytes of a fingerprint's first 16 characters; finds one keyed by those or all 22 as text", async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    const [recent, sixteen, older] = [testFingerprint('recent'), testFingerprint('sixteen'), testFingerprint('older')];
    await putGuardEntry(t.redis, sent, recent, `first/1/${t.clock.now()}`);
    expect(await t.redis.hkeysBuffer(`${sent}:map:0`)).toEqual([Buffer.from(recent.slice(0, 16), 'base64url')]);
    // As the versions before wrote them: the first 16 characters, or all 22, as text.
    await t.redis.hset(`${sent}:map:0`, sixteen.slice(0, 16), `first/2/${t.clock.now()}`, older, `first/3/${t.clock.now()}`);
    await t.redis.hincrby(`${sent}:map`, 'count', 2);
    const found = await t.ledger.priorSends('second', NUMBER, [
      { row: 1, fingerprint: recent },
      { row: 2, fingerprint: sixteen },
      { row: 3, fingerprint: older },
      { row: 4, fingerprint: testFingerprint('never') },
    ]);
    expect(found.map((f) => [f.row, f.detail.split(' sent ')[0]])).toEqual([
      [1, 'campaign first row 1'],
      [2, 'campaign first row 2'],
      [3, 'campaign first row 3'],
    ]);
  });

  it('prunes the guard by walking it at a pace set by time: entries past the window go, no fresh one, no index by time', async () => {
    const t = open({ duplicateWindowMs: WINDOW_MS });
    const jobs = await campaign(t, 2);
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    const now = t.clock.now();
    const stale = 1_000;
    for (let i = 0; i < stale; i++) await putGuardEntry(t.redis, sent, testFingerprint(`old-${i}`), `gone/${i}/${now - WINDOW_MS - 1}`);
    await putGuardEntry(t.redis, sent, 'fresh-1', `kept/1/${now}`);
    const messages = async () => Object.keys(await guardEntries(t.redis, sent)).sort();
    await t.ledger.claim(jobs[0] as SendJob);
    // Claims in a burst (no time passing) walk nothing: an unpaced drain pays nothing for the prune.
    for (let i = 0; i < 20; i++) await t.ledger.claim(jobs[1] as SendJob);
    expect((await messages()).length).toBe(stale + 3);
    // A sixteenth of the window walks a quarter of the guard (4 walks a window): four steps walk it all.
    let steps = 0;
    while ((await messages()).length > 3 && steps < 8) {
      t.clock.advance(WINDOW_MS / 16);
      await t.ledger.claim(jobs[1] as SendJob);
      steps++;
    }
    expect(await messages()).toEqual(['fp-1', 'fp-2', 'fresh-1']);
    expect(steps).toBeGreaterThanOrEqual(3);
    expect(steps).toBeLessThanOrEqual(6);
    expect(await t.redis.hget(`${sent}:map`, 'count')).toBe('3');
    expect(await t.redis.exists(`${t.prefix}:{${NUMBER}}:sent-at:${NUMBER}`)).toBe(0);
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
