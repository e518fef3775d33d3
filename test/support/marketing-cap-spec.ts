import { afterEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition, RowRecord } from '../../src/campaigns/campaign.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { SendProcessor } from '../../src/campaigns/send/send-processor.js';
import { CloudApiError } from '../../src/cloud-api/cloud-api-errors.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { RedisClient } from '../../src/redis/key-scope.js';
import { feedKeys, marketingCapKeys } from '../../src/redis/ledger/ledger-keys.js';
import { portfolioMarketingCapsKey } from '../../src/redis/pacer/portfolio-keys.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { phoneNumber } from './csv-files.js';
import { feedAll, ledgerTestDefinition, queuedRow } from './ledger-fixtures.js';
import { freshPrefix, removePrefix } from './redis.js';
import { TestClock } from './test-clock.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A and B share the portfolio "shop"; C is in "retail"; D is in "shop" and gets its first campaign late. */
export const [A, B, C, D] = ['1001', '1002', '2001', '1003'];
const PORTFOLIOS = new Map([
  [A, 'shop'],
  [B, 'shop'],
  [D, 'shop'],
  [C, 'retail'],
]);
const ANA = phoneNumber(1);
const BRUNO = phoneNumber(2);
const CARLA = phoneNumber(3);

/** A time as the rows' details write it: ISO 8601 to the second. */
const isoSecond = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface Rig {
  ledger: RedisLedger;
  clock: TestClock;
  redis: RedisClient;
  prefix: string;
}

/**
 * Meta's marketing cap (131049) on the ledger, on the Redis `connect` gives (each test on a
 * connection and a prefix of its own, its clock stopped on a whole second): a 131049 to a
 * MARKETING template caps the recipient on every number of the business portfolio until 24 h
 * after the failure; claims of MARKETING templates skip them (MARKETING_CAP_WAIT) while it
 * holds, other categories and texts go; `campaign retry` holds back the row that failed, and a
 * row it puts back is skipped at its claim; caps end by themselves, and a purge leaves them.
 */
export function describeMarketingCaps(label: string, connect: () => RedisClient): void {
  describe(label, () => {
    const opened: Rig[] = [];
    afterEach(async () => {
      for (const { redis, prefix } of opened.splice(0)) {
        await removePrefix(redis, prefix);
        await redis.quit();
      }
    });

    function open(): Rig {
      const redis = connect();
      const prefix = freshPrefix('marketing-cap');
      const clock = TestClock.stopped(Math.floor(Date.now() / 1000) * 1000);
      const rig = { ledger: new RedisLedger(redis, prefix, { clock, portfolios: PORTFOLIOS }), clock, redis, prefix };
      opened.push(rig);
      return rig;
    }

    /** A campaign on `number`: a template of `category`, or a text; absent: a template of a version that kept no category. */
    function definition(id: string, number: string, category: string): CampaignDefinition {
      const base = { ...ledgerTestDefinition(id), phoneNumberId: number };
      if (category !== 'text') return { ...base, category };
      const { createdAt, source } = base;
      return { id, createdAt, source, phoneNumberId: number, text: { body: 'Hi', previewUrl: false, columns: [] } };
    }

    /** Rows to `phones` queued, the ingest finished and every row fed: jobs waiting for their claim. */
    async function waiting(ledger: RedisLedger, def: CampaignDefinition, phones: readonly string[]): Promise<void> {
      await ledger.createCampaign(def);
      await ledger.recordIngested(
        def.id,
        def.phoneNumberId,
        phones.map((phone, i) => queuedRow(i + 1, phone)),
      );
      await ledger.finishIngest(def.id);
      await feedAll(ledger, def.phoneNumberId);
    }

    /**
     * Every row of a campaign (MARKETING unless told) on `number` (A unless told) claimed and accepted (message IDs
     * `wamid.<id>.<row>`), for status webhooks to fail.
     */
    async function sentOnA(ledger: RedisLedger, id: string, phones: readonly string[], category = 'MARKETING', number = A): Promise<void> {
      await waiting(ledger, definition(id, number, category), phones);
      for (const [i] of phones.entries()) {
        await ledger.claim({ campaignId: id, row: i + 1 }, number);
        await ledger.settle({ campaignId: id, row: i + 1 }, { status: 'sent', wamid: `wamid.${id}.${i + 1}` }, number);
      }
    }

    /** Meta's `failed` status for a row of `sentOnA`, at `at` (Meta's time). */
    const failed = (ledger: RedisLedger, id: string, row: number, at: number, code = '131049', number = A) =>
      ledger.applyStatuses([
        { phoneNumberId: number, wamid: `wamid.${id}.${row}`, kind: 'failed', at, code, detail: 'ecosystem engagement' },
      ]);

    const claim = async (ledger: RedisLedger, id: string, number: string, row = 1, requeue?: number) => {
      const job: SendJob = requeue === undefined ? { campaignId: id, row } : { campaignId: id, row, requeue };
      return ledger.claim(job, number);
    };

    async function rowsOf(ledger: RedisLedger, id: string): Promise<RowRecord[]> {
      const rows: RowRecord[] = [];
      for await (const page of ledger.rows(id)) rows.push(...page);
      return rows;
    }

    it('a failed 131049 on A skips the recipient at MARKETING claims on every number of the portfolio until 24 h after it', async () => {
      const { ledger, clock, redis, prefix } = open();
      await sentOnA(ledger, 'first', [ANA, BRUNO]);
      // Rows read and fed before the cap is learnt: the claim, right before the request, decides.
      await waiting(ledger, definition('mB', B, 'MARKETING'), [ANA, CARLA]);
      await waiting(ledger, definition('mC', C, 'MARKETING'), [ANA]);
      await waiting(ledger, definition('uB', B, 'UTILITY'), [ANA]);
      await waiting(ledger, definition('aB', B, 'AUTHENTICATION'), [ANA]);
      await waiting(ledger, definition('tB', B, 'text'), [ANA]);
      const failedAt = clock.now() - 5 * 60_000;

      const [outcome] = await failed(ledger, 'first', 1, failedAt);
      expect(outcome?.outcome).toBe('applied');
      expect((await rowsOf(ledger, 'first'))[0]).toMatchObject({ status: 'failed', errorCode: '131049' });

      expect(await claim(ledger, 'mB', B)).toStrictEqual({ outcome: 'settled', status: 'skipped' });
      const [anaRow] = await rowsOf(ledger, 'mB');
      expect(anaRow).toMatchObject({ phone: ANA, status: 'skipped', errorCode: 'MARKETING_CAP_WAIT' });
      expect(anaRow?.errorDetail).toBe(
        'Meta answered 131049 (its marketing cap for this user) to a recent MARKETING template of this business; ' +
          `no MARKETING template goes to them before ${isoSecond(failedAt + DAY)}`,
      );
      // Its job left the number's window in the same step; the others go on.
      expect(await redis.zscore(feedKeys(prefix, B).window, 'mB-1')).toBeNull();
      expect(await claim(ledger, 'mB', B, 2)).toMatchObject({ outcome: 'claimed', row: { to: CARLA } });
      expect((await ledger.status('mB'))?.counts).toMatchObject({ skipped: 1, sending: 1 });
      // Another portfolio, utility and authentication templates, texts: not capped.
      for (const [id, number] of [
        ['mC', C],
        ['uB', B],
        ['aB', B],
        ['tB', B],
      ] as const)
        expect(await claim(ledger, id, number), id).toMatchObject({ outcome: 'claimed' });

      // What ingest reads: the cap and its end, on each number of the portfolio (and the record).
      expect(await ledger.marketingCaps(B)).toStrictEqual(new Map([[ANA, failedAt + DAY]]));
      expect(await ledger.marketingCaps(A)).toStrictEqual(new Map([[ANA, failedAt + DAY]]));
      expect(Number(await redis.zscore(portfolioMarketingCapsKey(prefix, 'shop'), ANA))).toBe(failedAt + DAY);
      expect(await ledger.marketingCaps(C)).toStrictEqual(new Map());

      // A millisecond before the end it still holds; at the end it is over.
      clock.set(failedAt + DAY - 1);
      await waiting(ledger, definition('before', B, 'MARKETING'), [ANA]);
      expect(await claim(ledger, 'before', B)).toMatchObject({ outcome: 'settled', status: 'skipped' });
      clock.set(failedAt + DAY);
      await waiting(ledger, definition('after', B, 'MARKETING'), [ANA]);
      expect(await claim(ledger, 'after', B)).toMatchObject({ outcome: 'claimed', row: { to: ANA } });
      expect(await ledger.marketingCaps(B)).toStrictEqual(new Map());
    });

    it('131049 to a UTILITY or text campaign caps nobody, nor does another code to a MARKETING one', async () => {
      const { ledger, clock } = open();
      await sentOnA(ledger, 'utility', [ANA], 'UTILITY');
      await sentOnA(ledger, 'promo', [BRUNO]);
      expect((await failed(ledger, 'utility', 1, clock.now()))[0]?.outcome).toBe('applied');
      expect((await failed(ledger, 'promo', 1, clock.now(), '131026'))[0]?.outcome).toBe('applied');
      expect(await ledger.marketingCaps(B)).toStrictEqual(new Map());
      await waiting(ledger, definition('mB', B, 'MARKETING'), [ANA, BRUNO]);
      expect(await claim(ledger, 'mB', B, 1)).toMatchObject({ outcome: 'claimed' });
      expect(await claim(ledger, 'mB', B, 2)).toMatchObject({ outcome: 'claimed' });
    });

    it('a UTILITY campaign whose template Meta moved to MARKETING skips a capped recipient from the next claim', async () => {
      const { ledger, clock } = open();
      await sentOnA(ledger, 'first', [ANA]);
      await failed(ledger, 'first', 1, clock.now());
      await waiting(ledger, definition('moved', B, 'UTILITY'), [ANA, ANA]);
      expect(await claim(ledger, 'moved', B, 1)).toMatchObject({ outcome: 'claimed' });
      await ledger.recordTemplateInfo([
        { kind: 'category', name: 'order_update', language: 'en_US', value: 'MARKETING', previous: 'UTILITY', at: clock.now() },
      ]);
      expect(await claim(ledger, 'moved', B, 2)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    });

    it('the later end wins on each copy; a failure older than the wait adds nothing; ended caps go; a copy expires with them', async () => {
      const { ledger, clock, redis, prefix } = open();
      await sentOnA(ledger, 'first', [ANA, BRUNO, CARLA]);
      await sentOnA(ledger, 'second', [ANA]);
      await waiting(ledger, definition('mB', B, 'MARKETING'), [CARLA]);
      const t = clock.now();
      await failed(ledger, 'second', 1, t - HOUR);
      await failed(ledger, 'first', 1, t - 2 * HOUR);
      expect((await ledger.marketingCaps(B)).get(ANA)).toBe(t - HOUR + DAY);
      expect((await ledger.marketingCaps(A)).get(ANA)).toBe(t - HOUR + DAY);
      // Meta's webhook of a failure more than a day old (retried for days): its wait is over.
      await failed(ledger, 'first', 2, t - DAY - 1);
      expect((await ledger.marketingCaps(B)).has(BRUNO)).toBe(false);

      const copy = marketingCapKeys(prefix, B).caps;
      const ttl = await redis.pttl(copy);
      expect(ttl).toBeGreaterThan(DAY - 2 * HOUR);
      expect(ttl).toBeLessThanOrEqual(DAY - HOUR);
      // Once Ana's cap has ended, the next cap written drops it from each copy it reaches.
      clock.set(t - HOUR + DAY);
      await failed(ledger, 'first', 3, clock.now());
      expect(await redis.zrange(copy, 0, -1)).toStrictEqual([CARLA]);
      expect(await redis.zrange(portfolioMarketingCapsKey(prefix, 'shop'), 0, -1)).toStrictEqual([CARLA]);
      expect(await claim(ledger, 'mB', B)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    });

    it('a send answered 131049 at once caps the recipient as the webhook does, for a MARKETING template only', async () => {
      const { ledger, clock } = open();
      await waiting(ledger, definition('promo', A, 'MARKETING'), [ANA]);
      await waiting(ledger, definition('utility', A, 'UTILITY'), [BRUNO]);
      const refuse = {
        send: () => Promise.reject(new CloudApiError({ httpStatus: 400, metaCode: 131049, details: 'ecosystem engagement' })),
      };
      const processor = new SendProcessor({ ledger, sender: refuse, logger: silentLogger() });
      const context = { isLastAttempt: false, pairDelays: 0 };
      expect(await processor.process({ campaignId: 'promo', row: 1 }, context)).toStrictEqual({ kind: 'done', status: 'failed' });
      expect(await processor.process({ campaignId: 'utility', row: 1 }, context)).toStrictEqual({ kind: 'done', status: 'failed' });
      expect(await ledger.marketingCaps(B)).toStrictEqual(new Map([[ANA, clock.now() + DAY]]));
      await waiting(ledger, definition('mB', B, 'MARKETING'), [ANA]);
      expect(await claim(ledger, 'mB', B)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    });

    it('a number that gets its first campaign later takes the portfolio’s caps; one of another portfolio does not', async () => {
      const { ledger, clock } = open();
      // E1 and E2 are in the default portfolio (PORTFOLIOS names neither): E2 is known only once it has a campaign.
      const [E1, E2] = ['3001', '3002'];
      await sentOnA(ledger, 'first', [ANA], 'MARKETING', E1);
      await failed(ledger, 'first', 1, clock.now(), '131049', E1);
      await sentOnA(ledger, 'shop', [BRUNO]);
      await failed(ledger, 'shop', 1, clock.now());
      await waiting(ledger, definition('mE2', E2, 'MARKETING'), [ANA, BRUNO]);
      await waiting(ledger, definition('mC', C, 'MARKETING'), [ANA]);
      expect(await claim(ledger, 'mE2', E2, 1)).toMatchObject({ outcome: 'settled', status: 'skipped' });
      expect(await claim(ledger, 'mE2', E2, 2)).toMatchObject({ outcome: 'claimed' });
      expect(await claim(ledger, 'mC', C)).toMatchObject({ outcome: 'claimed' });
      expect(await ledger.marketingCaps(E2)).toStrictEqual(new Map([[ANA, clock.now() + DAY]]));
    });

    it('a number’s own caps (kept before it shared its portfolio’s) go to its whole portfolio when it is next registered', async () => {
      const { ledger, clock, redis, prefix } = open();
      await waiting(ledger, definition('mB', B, 'MARKETING'), [ANA]);
      await redis.zadd(marketingCapKeys(prefix, A).caps, clock.now() + HOUR, ANA);
      await waiting(ledger, definition('mA', A, 'MARKETING'), [BRUNO]);
      expect(await claim(ledger, 'mB', B)).toMatchObject({ outcome: 'settled', status: 'skipped' });
      expect(await ledger.marketingCaps(B)).toStrictEqual(new Map([[ANA, clock.now() + HOUR]]));
    });

    it('retry holds back the row that failed 131049 for 24 h; a row of another campaign it puts back is skipped at its claim', async () => {
      const { ledger, clock } = open();
      await sentOnA(ledger, 'first', [ANA]);
      // Ana's row on B failed for another reason before the cap came.
      await waiting(ledger, definition('mB', B, 'MARKETING'), [ANA]);
      await claim(ledger, 'mB', B);
      await ledger.settle({ campaignId: 'mB', row: 1 }, { status: 'failed', errorCode: '131026', errorDetail: 'undeliverable' }, B);
      const failedAt = clock.now();
      await failed(ledger, 'first', 1, failedAt);

      const all = { codes: [], failed: true, unknown: false };
      expect(await ledger.markForRetry('first', 1, 1, all)).toMatchObject({ requeued: 0, held: 1, heldUntil: failedAt + DAY });
      expect(await ledger.markForRetry('mB', 1, 1, all)).toMatchObject({ requeued: 1, held: 0 });
      await feedAll(ledger, B);
      expect(await claim(ledger, 'mB', B, 1, 1)).toStrictEqual({ outcome: 'settled', status: 'skipped', completedCampaign: true });
      expect((await rowsOf(ledger, 'mB'))[0]).toMatchObject({ status: 'skipped', errorCode: 'MARKETING_CAP_WAIT' });

      // A day later: the failed row itself goes again, and is sent.
      clock.set(failedAt + DAY);
      expect(await ledger.markForRetry('first', 1, 1, all)).toMatchObject({ requeued: 1, held: 0 });
      await feedAll(ledger, A);
      expect(await claim(ledger, 'first', A, 1, 1)).toMatchObject({ outcome: 'claimed', row: { to: ANA } });
    });

    it('a purge of the campaign that learnt the cap leaves the cap; it ends by itself', async () => {
      const { ledger, clock } = open();
      await sentOnA(ledger, 'first', [ANA]);
      await failed(ledger, 'first', 1, clock.now());
      expect((await ledger.status('first'))?.state).toBe('completed');
      expect((await ledger.purge('first')).rows).toBe(1);
      await waiting(ledger, definition('mB', B, 'MARKETING'), [ANA]);
      expect(await claim(ledger, 'mB', B)).toMatchObject({ outcome: 'settled', status: 'skipped' });
      expect(await ledger.marketingCaps(B)).toStrictEqual(new Map([[ANA, clock.now() + DAY]]));
    });
  });
}
