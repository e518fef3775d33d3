import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StatusUpdate } from '../../src/campaigns/ledger.js';
import type { CampaignDefinition, RowRecord } from '../../src/campaigns/campaign.js';
import type { CampaignLedger, FeedOptions, FeedResult, IngestedRow, Settlement } from '../../src/campaigns/ledger.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import type { RedisClient } from '../../src/redis/key-scope.js';
import { RedisLedger, type LedgerOptions } from '../../src/redis/ledger/redis-ledger.js';
import { phoneNumber } from './csv-files.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from './ledger-fixtures.js';
import { ledgerPeek, type LedgerPeek } from './ledger-peek.js';
import { freshPrefix, removePrefix } from './redis.js';
import { TestClock } from './test-clock.js';
import { pattern } from './long-pattern.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

/**
 * The campaign ledger's specification: every rule of the Lua scripts (src/redis/lua), as
 * scenarios run against RedisLedger on a real Redis (test/integration/ledger-contract.test.ts;
 * test/integration/script-slots.test.ts runs them again with every script call watched). They
 * go through the CampaignLedger interface, so what they check is what the campaign logic can
 * see; the few that look at the keys behind it say so.
 *
 * Time. Each ledger gets a stopped clock (LedgerOptions.clock, src/redis/ledger/ledger-clock.ts):
 * every script takes "now" from it, so the scenarios set the time (`clock.set`, or a feed's
 * `at`) and move it (`clock.advance`) instead of waiting, and times come out exact.
 */

export type ContractLedgerOptions = Pick<LedgerOptions, 'autoPause' | 'duplicateWindowMs' | 'confirmWindowMs' | 'portfolios'>;

export interface ContractLedger {
  ledger: RedisLedger;
  /** The ledger's clock, stopped at the time the ledger was opened. */
  clock: TestClock;
  /** What the ledger's keys hold (the backlog, the window, the message-ID index). */
  peek: LedgerPeek;
}

const NUMBER = LEDGER_TEST_NUMBER;
const ID = 'ctr';
const HOUR = 3_600_000;
const MINUTE = 60_000;
const TOKEN_DETAIL = 'Error validating access token: Session has expired.';

/** The first job of a row (requeue absent), or its job number `requeue`: as the feeder makes them. */
function job(row: number, requeue?: number, id = ID): SendJob {
  return requeue === undefined ? { campaignId: id, row } : { campaignId: id, row, requeue };
}
const jobOf = (id: string, row: number, requeue?: number): SendJob => job(row, requeue, id);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const rejected = (row: number, code = 'PHONE_INVALID'): IngestedRow => ({
  row,
  phone: 'bad',
  status: 'rejected',
  errorCode: code,
  errorDetail: `line ${row + 1}: bad`,
});
const sentAs = (wamid: string): Settlement => ({ status: 'sent', wamid });
const failedWith = (code: string, detail = 'x'): Settlement => ({ status: 'failed', errorCode: code, errorDetail: detail });

/**
 * Runs the scenarios on the Redis `connect` gives: each ledger on a connection of its own,
 * under a fresh prefix, removed and closed after the test.
 */
export function describeLedgerContract(label: string, connect: () => RedisClient): void {
  describe(`the ledger's specification: ${label}`, () => {
    const opened: { redis: RedisClient; prefix: string }[] = [];
    const clocks = new Map<CampaignLedger, TestClock>();
    let ledger: CampaignLedger;
    let clock: TestClock;
    let peek: LedgerPeek;

    function open(options: ContractLedgerOptions = {}): ContractLedger {
      const redis = connect();
      const prefix = freshPrefix('ledger-spec');
      opened.push({ redis, prefix });
      const ledgerClock = TestClock.stopped();
      const made = new RedisLedger(redis, prefix, { ...options, clock: ledgerClock });
      clocks.set(made, ledgerClock);
      return { ledger: made, clock: ledgerClock, peek: ledgerPeek(redis, prefix) };
    }

    beforeEach(() => {
      ({ ledger, clock, peek } = open());
    });

    afterEach(async () => {
      for (const { redis, prefix } of opened.splice(0)) {
        await removePrefix(redis, prefix);
        await redis.quit();
      }
      clocks.clear();
    });

    /**
     * A campaign of `queued` rows 1..n (plus `extra` rows), ingest finished unless told
     * otherwise; then fed: every row, `fed` of them, or none (`fed: 0`).
     */
    async function campaign(
      n: number,
      options: {
        id?: string;
        extra?: IngestedRow[];
        finish?: boolean;
        fed?: number;
        on?: CampaignLedger;
        define?: Partial<CampaignDefinition>;
      } = {},
    ): Promise<FeedResult | undefined> {
      const l = options.on ?? ledger;
      const id = options.id ?? ID;
      await l.createCampaign({ ...ledgerTestDefinition(id), ...options.define });
      await l.recordIngested(id, NUMBER, [...range(1, n).map((r) => queuedRow(r)), ...(options.extra ?? [])]);
      if (options.finish !== false) await l.finishIngest(id);
      if (options.fed === 0) return undefined;
      const size = options.fed === undefined ? 10_000 : (await l.windowSize(NUMBER)) + options.fed;
      return feed(size, {}, l);
    }

    /**
     * One feed of the number: the window `size` jobs at most, no refresh unless asked for;
     * with `at`, the ledger's clock is set to that time first (it stays there).
     */
    const feed = (size = 10_000, more: Partial<FeedOptions> & { at?: number } = {}, l: CampaignLedger = ledger): Promise<FeedResult> => {
      const { at, ...options } = more;
      if (at !== undefined) clocks.get(l)?.set(at);
      return l.feed(NUMBER, { windowSize: size, minBatch: 1, refreshAfterMs: HOUR, refreshMost: 0, ...options });
    };

    async function rowsOf(id = ID, l: CampaignLedger = ledger): Promise<RowRecord[]> {
      const out: RowRecord[] = [];
      for await (const page of l.rows(id)) out.push(...page);
      return out;
    }
    async function row(n: number, id = ID): Promise<RowRecord> {
      const found = (await rowsOf(id)).find((r) => r.row === n);
      if (found === undefined) throw new Error(`no row ${n}`);
      return found;
    }
    const statuses = async (id = ID): Promise<string[]> => (await rowsOf(id)).map((r) => r.status);
    const counts = async (id = ID, l: CampaignLedger = ledger) => (await l.status(id))?.counts;
    const answer = async (j: SendJob, s: Settlement, l: CampaignLedger = ledger) => {
      await l.claim(j, NUMBER);
      return l.settle(j, s, NUMBER);
    };

    describe('ingest', () => {
      it('records queued, rejected and skipped rows with their counts; only queued rows join the backlog, in row order', async () => {
        await ledger.createCampaign(ledgerTestDefinition(ID));
        const skipped: IngestedRow = {
          row: 3,
          phone: phoneNumber(1),
          status: 'skipped',
          errorCode: 'DUPLICATE_PHONE',
          errorDetail: 'line 4: same number as row 1',
        };
        const result = await ledger.recordIngested(ID, NUMBER, [queuedRow(1), rejected(2), skipped, queuedRow(4)]);
        expect(result).toEqual({ queued: [1, 4], alreadySent: [], reopened: 0 });
        expect(await ledger.status(ID)).toMatchObject({
          state: 'ingesting',
          counts: { total: 4, queued: 2, rejected: 1, skipped: 1, sent: 0 },
        });
        expect(await rowsOf()).toEqual([
          { row: 1, phone: phoneNumber(1), status: 'queued', attempts: 0 },
          { row: 2, phone: 'bad', status: 'rejected', attempts: 0, errorCode: 'PHONE_INVALID', errorDetail: 'line 3: bad' },
          {
            row: 3,
            phone: phoneNumber(1),
            status: 'skipped',
            attempts: 0,
            errorCode: 'DUPLICATE_PHONE',
            errorDetail: 'line 4: same number as row 1',
          },
          { row: 4, phone: phoneNumber(4), status: 'queued', attempts: 0 },
        ]);
        expect((await feed()).jobs).toEqual([job(1), job(4)]);
        // Recording the same rows again changes nothing (idempotent per row number).
        expect(await ledger.recordIngested(ID, NUMBER, [queuedRow(1), queuedRow(4)])).toEqual({ queued: [], alreadySent: [], reopened: 0 });
        expect(await ledger.recordIngested(ID, NUMBER, [])).toEqual({ queued: [], alreadySent: [], reopened: 0 });
        expect((await ledger.status(ID))?.counts).toMatchObject({ total: 4, queued: 2 });
        expect((await feed()).jobs).toEqual([]);
      });

      it('a claim hands over what the row holds (recipient, values, header link), not what the job carries', async () => {
        await ledger.createCampaign(ledgerTestDefinition(ID));
        await ledger.recordIngested(ID, NUMBER, [
          {
            row: 1,
            phone: phoneNumber(1),
            status: 'queued',
            message: { values: ['Ana', 'A-1'], headerLink: 'https://x.test/a.png', fingerprint: 'fp-a' },
          },
          { row: 2, phone: phoneNumber(2), status: 'queued', message: { values: [], headerLink: '', fingerprint: 'fp-b' } },
        ]);
        await feed();
        expect(await ledger.claim({ ...job(1), to: '+10000000000', values: ['from the job'] }, NUMBER)).toStrictEqual({
          outcome: 'claimed',
          attempt: 1,
          row: { to: phoneNumber(1), values: ['Ana', 'A-1'], headerLink: 'https://x.test/a.png' },
        });
        // No values: an empty list; an empty header link: none.
        expect(await ledger.claim(job(2), NUMBER)).toStrictEqual({
          outcome: 'claimed',
          attempt: 1,
          row: { to: phoneNumber(2), values: [], headerLink: undefined },
        });
      });

      it(
        'a fixed file sent again: rejected and skipped rows take the new verdict under a new job ' +
          'number, other rows keep theirs, a finished campaign reopens',
        async () => {
          const optedOut: IngestedRow = {
            row: 4,
            phone: phoneNumber(4),
            status: 'skipped',
            errorCode: 'OPTED_OUT',
            errorDetail: 'line 5: opted out',
          };
          await campaign(1, { extra: [rejected(2), rejected(3), optedOut] });
          await answer(job(1), sentAs('wamid.1'));
          expect((await ledger.status(ID))?.state).toBe('completed');

          const again = await ledger.recordIngested(ID, NUMBER, [
            queuedRow(1, phoneNumber(5)),
            queuedRow(2),
            rejected(3, 'VALUE_CONTROL_CHAR'),
            queuedRow(4),
          ]);
          expect(again).toEqual({ queued: [2, 4], alreadySent: [], reopened: 2 });
          const status = await ledger.status(ID);
          expect(status).toMatchObject({
            state: 'running',
            finishedAt: undefined,
            counts: { total: 4, sent: 1, queued: 2, rejected: 1, skipped: 0 },
          });
          expect((await rowsOf()).map((r) => [r.row, r.status, r.phone, r.errorCode, r.requeue])).toEqual([
            [1, 'sent', phoneNumber(1), undefined, undefined],
            [2, 'queued', phoneNumber(2), undefined, 1],
            [3, 'rejected', 'bad', 'VALUE_CONTROL_CHAR', 1],
            [4, 'queued', phoneNumber(4), undefined, 1],
          ]);
          // The finished campaign is fed again, the reopened rows under their new job numbers.
          expect((await feed()).jobs).toEqual([job(2, 1), job(4, 1)]);
          await answer(job(4, 1), sentAs('wamid.4'));
          expect(await ledger.claim(job(2), NUMBER)).toEqual({ outcome: 'stale' });
          expect(await ledger.claim(job(2, 1), NUMBER)).toMatchObject({ outcome: 'claimed', attempt: 1 });
          await ledger.settle(job(2, 1), sentAs('wamid.2'), NUMBER);
          expect((await ledger.status(ID))?.state).toBe('completed');
        },
      );

      it('rows read into a cancelled campaign are cancelled, into an expired one expired: never queued', async () => {
        await campaign(1, { fed: 0 });
        expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 1 });
        expect(await ledger.recordIngested(ID, NUMBER, [queuedRow(2), rejected(3)])).toEqual({ queued: [], alreadySent: [], reopened: 0 });
        expect(await statuses()).toEqual(['cancelled', 'cancelled', 'rejected']);
        expect((await ledger.status(ID))?.counts).toMatchObject({ total: 3, queued: 0, cancelled: 2, rejected: 1 });
        expect((await feed()).jobs).toEqual([]);

        const at = clock.now();
        await campaign(1, { id: 'gone', define: { expiresAt: at + MINUTE }, fed: 0 });
        expect((await feed(100, { at: at + MINUTE })).events).toEqual([
          { kind: 'expired', campaignId: 'gone', rows: 1 },
          { kind: 'completed', campaignId: 'gone' },
        ]);
        expect((await ledger.recordIngested('gone', NUMBER, [queuedRow(2)])).queued).toEqual([]);
        expect((await ledger.status('gone'))?.counts).toMatchObject({ total: 2, queued: 0, expired: 2 });
        expect(await statuses('gone')).toEqual(['expired', 'expired']);
      });

      it(
        'an interrupted ingest pauses the campaign; continuing lifts only that pause; cancel ' +
          'ends the ingest so the campaign completes',
        async () => {
          await campaign(2, { finish: false, fed: 0 });
          expect(await ledger.markIngestInterrupted(ID, 'ingest interrupted at row 2')).toBe(true);
          expect(await ledger.status(ID)).toMatchObject({
            state: 'paused',
            pausedReason: 'ingest interrupted at row 2',
            ingestInterrupted: true,
          });
          expect((await feed()).jobs).toEqual([]);
          expect(await ledger.liftIngestPause(ID)).toBe(true);
          expect(await ledger.status(ID)).toMatchObject({ state: 'ingesting', ingestInterrupted: true });
          expect(await ledger.liftIngestPause(ID)).toBe(false);

          // Interrupted again, then paused by the operator for another reason: continuing must not lift that.
          await ledger.markIngestInterrupted(ID, 'ingest interrupted at row 2');
          await ledger.resume(ID);
          await ledger.pause(ID, 'checking the template');
          expect(await ledger.liftIngestPause(ID)).toBe(false);
          expect((await ledger.status(ID))?.pausedReason).toBe('checking the template');

          expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 2 });
          const status = await ledger.status(ID);
          expect(status).toMatchObject({ state: 'cancelled', ingestInterrupted: false, counts: { total: 2, queued: 0, cancelled: 2 } });
          expect(status?.finishedAt).toBeTypeOf('number');
          expect(await ledger.markIngestInterrupted(ID, 'again')).toBe(false);
          expect(await ledger.markIngestInterrupted('nope', 'x')).toBe(false);
        },
      );

      it('finishIngest completes a campaign whose rows all have their answer, and says so once', async () => {
        await ledger.createCampaign(ledgerTestDefinition(ID));
        await ledger.recordIngested(ID, NUMBER, [rejected(1), rejected(2)]);
        const before = clock.now();
        expect(await ledger.finishIngest(ID)).toBe(true);
        const status = await ledger.status(ID);
        expect(status?.state).toBe('completed');
        expect(status?.finishedAt).toBeGreaterThanOrEqual(before);
        expect(status?.finishedAt).toBeLessThanOrEqual(clock.now());
        expect(await ledger.finishIngest(ID)).toBe(false);
      });

      it('createCampaign again keeps the first definition; getCampaign reads it back; listCampaigns is in order of creation', async () => {
        const at = clock.now();
        await ledger.createCampaign({ ...ledgerTestDefinition('b'), createdAt: at + 2 });
        await ledger.createCampaign({ ...ledgerTestDefinition('a'), createdAt: at + 3 });
        await ledger.createCampaign({ ...ledgerTestDefinition('c'), createdAt: at + 1, priority: 'high', startsAt: at + 2 * HOUR });
        await ledger.createCampaign({ ...ledgerTestDefinition('c'), createdAt: at + 9, phoneNumberId: 'other', startsAt: at + HOUR });
        expect(await ledger.getCampaign('c')).toEqual({
          ...ledgerTestDefinition('c'),
          createdAt: at + 1,
          priority: 'high',
          startsAt: at + 2 * HOUR,
        });
        // Only the schedule fields are written again (the feed reads them from there): the
        // definition keeps its start, the campaign has the new one.
        expect((await ledger.status('c'))?.startsAt).toBe(at + HOUR);
        expect(await ledger.getCampaign('nope')).toBeUndefined();
        expect(await ledger.listCampaigns()).toEqual(['c', 'b', 'a']);
        expect(await ledger.status('c')).toMatchObject({ id: 'c', priority: 'high', createdAt: at + 1, state: 'scheduled' });
      });

      it('remembers opt-outs per business portfolio with where they were learnt', async () => {
        const { ledger: split, clock: splitClock } = open({ portfolios: new Map([['other', 'retail']]) });
        const before = splitClock.now();
        await split.recordOptOut(NUMBER, phoneNumber(1), { campaignId: 'c1', row: 4 });
        await split.recordOptOut('other', phoneNumber(2), { campaignId: 'c2', row: 1 });
        const found = await split.optOuts(NUMBER);
        expect([...found.keys()]).toEqual([phoneNumber(1)]);
        expect(found.get(phoneNumber(1))).toMatchObject({ campaignId: 'c1', row: 4 });
        expect(found.get(phoneNumber(1))?.at).toBeGreaterThanOrEqual(before);
        // 'none' is in NUMBER's portfolio (the default one): the opt-out holds there too.
        expect([...(await split.optOuts('none')).keys()]).toEqual([phoneNumber(1)]);
        expect(await ledger.optOuts('none')).toEqual(new Map());
      });
    });

    describe('the duplicate-send guard', () => {
      it(
        'a message another row claimed within the window is skipped ALREADY_SENT at the claim, naming ' +
          'that row; the same row claimed again is not its own duplicate',
        async () => {
          const { ledger: guarded } = open({ duplicateWindowMs: 24 * HOUR });
          await campaign(1, { id: 'c1', on: guarded });
          await campaign(1, { id: 'c2', on: guarded });
          expect(await guarded.claim(jobOf('c1', 1), NUMBER)).toMatchObject({ outcome: 'claimed' });
          expect(await guarded.claim(jobOf('c2', 1), NUMBER)).toStrictEqual({
            outcome: 'settled',
            status: 'skipped',
            completedCampaign: true,
          });
          const [skipped] = await rowsOf('c2', guarded);
          expect(skipped).toMatchObject({ status: 'skipped', errorCode: 'ALREADY_SENT', attempts: 0 });
          expect(skipped?.errorDetail).toMatch(
            pattern(
              /^campaign c1 row 1 sent the same message \(template, language, values\) to/,
              / this recipient from this number 0\.0 h ago, within DUPLICATE_WINDOW_HOURS/,
            ),
          );
          expect((await guarded.status('c2'))?.state).toBe('completed');

          await guarded.settle(jobOf('c1', 1), { status: 'queued', errorCode: '131000', errorDetail: 'again' }, NUMBER);
          expect(await guarded.claim(jobOf('c1', 1), NUMBER)).toMatchObject({ outcome: 'claimed', attempt: 2 });
          // Another row of the same campaign with the same message is a duplicate too.
          await guarded.recordIngested('c1', NUMBER, [queuedRow(2, phoneNumber(1))]);
          await feed(10_000, {}, guarded);
          expect(await guarded.claim(jobOf('c1', 2), NUMBER)).toMatchObject({ outcome: 'settled', status: 'skipped' });
          expect((await rowsOf('c1', guarded))[1]?.errorDetail).toMatch(/^campaign c1 row 1 sent the same message/);
        },
      );

      it('at ingest: a message sent within the window is skipped ALREADY_SENT; not other values, --allow-repeat, refusals', async () => {
        const { ledger: guarded } = open({ duplicateWindowMs: 24 * HOUR });
        await campaign(3, { id: 'c1', on: guarded });
        for (const n of [1, 2, 3]) await guarded.claim(jobOf('c1', n), NUMBER);
        await guarded.settle(jobOf('c1', 1), sentAs('w1'), NUMBER);
        // Refused by Meta, or halted: not sent, so the guard forgets them.
        await guarded.settle(jobOf('c1', 2), failedWith('131026'), NUMBER);
        await guarded.halt(jobOf('c1', 3), '190', TOKEN_DETAIL, NUMBER);

        await guarded.createCampaign(ledgerTestDefinition('c2'));
        const other: IngestedRow = {
          row: 4,
          phone: phoneNumber(1),
          status: 'queued',
          message: { values: [], headerLink: undefined, fingerprint: 'fp-other-values' },
        };
        const result = await guarded.recordIngested('c2', NUMBER, [queuedRow(1), queuedRow(2), queuedRow(3), other]);
        expect(result.alreadySent).toStrictEqual([
          { row: 1, detail: expect.stringMatching(/^campaign c1 row 1 sent the same message/) as unknown },
        ]);
        expect(result.queued).toStrictEqual([2, 3, 4]);
        expect((await rowsOf('c2', guarded)).map((r) => [r.status, r.errorCode])).toEqual([
          ['skipped', 'ALREADY_SENT'],
          ['queued', undefined],
          ['queued', undefined],
          ['queued', undefined],
        ]);

        await guarded.createCampaign(ledgerTestDefinition('c3'));
        await guarded.allowRepeat('c3');
        expect((await guarded.recordIngested('c3', NUMBER, [queuedRow(1)])).queued).toStrictEqual([1]);
        await guarded.finishIngest('c3');
        await feed(10_000, {}, guarded);
        // Allowed to repeat at the claim too.
        expect(await guarded.claim(jobOf('c3', 1), NUMBER)).toMatchObject({ outcome: 'claimed' });
      });

      it('a send older than the window is no duplicate; without a window there is no guard', async () => {
        const { ledger: guarded, clock: guardClock } = open({ duplicateWindowMs: 24 * HOUR });
        await campaign(1, { id: 'c1', on: guarded });
        await answer(jobOf('c1', 1), sentAs('w1'), guarded);
        guardClock.advance(24 * HOUR - 1);
        await guarded.createCampaign(ledgerTestDefinition('c0'));
        expect((await guarded.recordIngested('c0', NUMBER, [queuedRow(1)])).alreadySent).toHaveLength(1);
        guardClock.advance(1);
        await guarded.createCampaign(ledgerTestDefinition('c2'));
        expect((await guarded.recordIngested('c2', NUMBER, [queuedRow(1)])).queued).toEqual([1]);
        await guarded.finishIngest('c2');
        await feed(10_000, {}, guarded);
        expect(await guarded.claim(jobOf('c2', 1), NUMBER)).toMatchObject({ outcome: 'claimed' });

        // The default ledger has no window.
        await campaign(1, { id: 'd1' });
        await campaign(1, { id: 'd2' });
        expect(await ledger.claim(jobOf('d1', 1), NUMBER)).toMatchObject({ outcome: 'claimed' });
        expect(await ledger.claim(jobOf('d2', 1), NUMBER)).toMatchObject({ outcome: 'claimed' });
      });
    });

    describe('feed', () => {
      it('never feeds past the window size, nothing while the room is below minBatch; every end of a job frees its place', async () => {
        await campaign(100, { fed: 0 });
        expect((await feed(10)).jobs).toEqual(range(1, 10).map((n) => job(n)));
        expect(await ledger.windowSize(NUMBER)).toBe(10);
        expect(await feed(10)).toEqual({ jobs: [], refresh: [], events: [] });
        for (const n of [1, 2, 3]) await answer(job(n), sentAs(`w${n}`));
        expect(await ledger.windowSize(NUMBER)).toBe(7);
        expect((await feed(10, { minBatch: 4 })).jobs).toEqual([]);
        await answer(job(4), sentAs('w4'));
        expect((await feed(10, { minBatch: 4 })).jobs).toEqual(range(11, 14).map((n) => job(n)));
        expect((await feed(12)).jobs).toEqual([job(15), job(16)]);
        expect(await ledger.windowSize(NUMBER)).toBe(12);
        expect(await ledger.windowSize('other')).toBe(0);
      });

      it('priority classes are strict, and a high campaign arriving later goes first; a feed lists the higher class first', async () => {
        await campaign(5, { id: 'low', define: { priority: 'low' }, fed: 0 });
        await campaign(5, { id: 'normal', fed: 0 });
        await campaign(5, { id: 'high', define: { priority: 'high' }, fed: 0 });
        expect((await feed(7)).jobs).toEqual([...range(1, 5).map((n) => jobOf('high', n)), jobOf('normal', 1), jobOf('normal', 2)]);
        expect((await feed(10)).jobs).toEqual(range(3, 5).map((n) => jobOf('normal', n)));
        await campaign(2, { id: 'urgent', define: { priority: 'high' }, fed: 0 });
        expect((await feed(12)).jobs).toEqual([jobOf('urgent', 1), jobOf('urgent', 2)]);
        expect((await feed(14)).jobs).toEqual([jobOf('low', 1), jobOf('low', 2)]);
      });

      it('campaigns of one priority share the room equally, rows interleaved; one with fewer rows leaves the rest to others', async () => {
        await campaign(10, { id: 'a', fed: 0 });
        await campaign(10, { id: 'b', fed: 0 });
        expect((await feed(6)).jobs).toEqual([jobOf('a', 1), jobOf('b', 1), jobOf('a', 2), jobOf('b', 2), jobOf('a', 3), jobOf('b', 3)]);
        await campaign(2, { id: 'c', fed: 0 });
        // Room 7 over three, the round starting at c (now ≡ 2 mod 3), which takes the
        // remainder: 3 wanted, 2 got; the place it leaves goes round again, to a.
        const { jobs } = await feed(13, { at: 3 * Math.floor(clock.now() / 3) + 2 });
        expect(jobs).toEqual([jobOf('a', 4), jobOf('b', 4), jobOf('c', 1), jobOf('a', 5), jobOf('b', 5), jobOf('c', 2), jobOf('a', 6)]);
        // c is done (ingest finished, nothing left); a and b take all the room.
        const next = await feed(17);
        expect(next.jobs.map((j) => j.campaignId).sort()).toEqual(['a', 'a', 'b', 'b']);
      });

      it('the remainder of the room goes round with the clock: each feed starts the round at now modulo the campaigns', async () => {
        for (const id of ['a', 'b', 'c']) await campaign(10, { id, fed: 0 });
        const base = 3 * Math.floor(clock.now() / 3);
        const fedAt = async (at: number): Promise<string[]> => {
          const { jobs } = await feed(2, { at });
          for (const j of jobs) await answer(j, sentAs(`w-${j.campaignId}-${j.row}`));
          return jobs.map((j) => j.campaignId);
        };
        // Two places for three campaigns: the round starts at a, then b, then c; rows are listed in the active set's order.
        expect(await fedAt(base)).toEqual(['a', 'b']);
        expect(await fedAt(base + 1)).toEqual(['b', 'c']);
        expect(await fedAt(base + 2)).toEqual(['a', 'c']);
        expect(await fedAt(base + 3)).toEqual(['a', 'b']);
      });

      it('paused and cancelled campaigns get nothing; the paused one is fed again once resumed', async () => {
        await campaign(3, { id: 'paused', fed: 0 });
        await campaign(3, { id: 'gone', fed: 0 });
        await campaign(3, { id: 'running', fed: 0 });
        await ledger.pause('paused', 'operator');
        expect(await ledger.cancel('gone')).toEqual({ outcome: 'cancelled', cancelled: 3 });
        expect((await feed()).jobs).toEqual(range(1, 3).map((n) => jobOf('running', n)));
        expect((await feed()).jobs).toEqual([]);
        await ledger.resume('paused');
        expect((await feed()).jobs).toEqual(range(1, 3).map((n) => jobOf('paused', n)));
      });

      it('a campaign still ingesting keeps its place while its backlog is empty; rows read later are fed', async () => {
        await campaign(3, { finish: false });
        expect((await feed()).jobs).toEqual([]);
        await ledger.recordIngested(ID, NUMBER, [queuedRow(4), queuedRow(5)]);
        expect((await feed()).jobs).toEqual([job(4), job(5)]);
        await ledger.finishIngest(ID);
        expect((await feed()).jobs).toEqual([]);
      });

      it(
        'jobs fed longer than refreshAfterMs ago and not done are handed out again, oldest ' +
          'first, at most refreshMost, their age restarting',
        async () => {
          await campaign(4, { fed: 0 });
          const t = clock.now();
          await feed(2, { at: t });
          await feed(4, { at: t + 10 });
          await answer(job(3), sentAs('w3'));
          const refresh = { refreshAfterMs: MINUTE, refreshMost: 2 };
          expect(await feed(4, { at: t + MINUTE - 1, ...refresh })).toEqual({ jobs: [], refresh: [], events: [] });
          expect(await feed(4, { at: t + MINUTE + 10, ...refresh })).toEqual({ jobs: [], refresh: [job(1), job(2)], events: [] });
          // Handed out at t + MINUTE + 10, so they age from there; row 4 (fed at t + 10) is next.
          expect(await feed(4, { at: t + MINUTE + 20, ...refresh })).toEqual({ jobs: [], refresh: [job(4)], events: [] });
          expect((await feed(4, { at: t + 2 * MINUTE + 10, refreshAfterMs: MINUTE, refreshMost: 0 })).refresh).toEqual([]);
          expect((await feed(4, { at: t + 2 * MINUTE + 10, refreshAfterMs: MINUTE, refreshMost: 10 })).refresh).toEqual([job(1), job(2)]);
          expect(await ledger.windowSize(NUMBER)).toBe(3);
        },
      );

      it('claim: claimed and in-doubt keep the job in the window; parked, settled, stale and missing free its place', async () => {
        await campaign(6);
        expect(await ledger.windowSize(NUMBER)).toBe(6);
        expect((await ledger.claim(job(1), NUMBER)).outcome).toBe('claimed');
        expect(await ledger.claim(job(1), NUMBER)).toEqual({ outcome: 'in-doubt', attempts: 1 });
        expect(await ledger.windowSize(NUMBER)).toBe(6);
        await ledger.pause(ID, 'operator');
        expect(await ledger.claim(job(2), NUMBER)).toEqual({ outcome: 'parked' });
        expect(await ledger.windowSize(NUMBER)).toBe(5);
        await ledger.resume(ID);
        // A stale job (row 3 is owned by its first job) takes only its own place, which it never had.
        expect(await ledger.claim(job(3, 4), NUMBER)).toEqual({ outcome: 'stale' });
        expect(await ledger.windowSize(NUMBER)).toBe(5);
        await expect(ledger.claim(job(99), NUMBER)).rejects.toThrow(/no row 99/);
        expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 1 });
        expect(await ledger.claim(job(4), NUMBER)).toEqual({ outcome: 'settled', status: 'cancelled' });
        expect(await ledger.windowSize(NUMBER)).toBe(4);
      });

      it('settle: queued keeps the job in the window; sent, failed, unknown, abandoned and a halt free its place', async () => {
        await campaign(7);
        for (const n of [1, 2, 3, 4, 6]) await ledger.claim(job(n), NUMBER);
        await ledger.settle(job(1), { status: 'queued', errorCode: '131000', errorDetail: 'again' }, NUMBER);
        expect(await ledger.windowSize(NUMBER)).toBe(7);
        await ledger.settle(job(1), sentAs('w1'), NUMBER);
        await ledger.settle(job(2), failedWith('131026', 'undeliverable'), NUMBER);
        await ledger.settle(job(3), { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'x' }, NUMBER);
        await ledger.settle(job(4), { status: 'abandoned', errorCode: 'WORKER_GAVE_UP', errorDetail: 'stalled' }, NUMBER);
        expect(
          (await ledger.settle(job(5), { status: 'abandoned', errorCode: 'WORKER_GAVE_UP', errorDetail: 'stalled' }, NUMBER)).status,
        ).toBe('failed');
        await ledger.halt(job(6), '190', 'token expired', NUMBER);
        // An answer from a job that does not own row 7 leaves row 7's job in place.
        await ledger.settle(job(7, 2), sentAs('w7'), NUMBER);
        expect(await ledger.windowSize(NUMBER)).toBe(1);
        expect((await ledger.status(ID))?.counts).toMatchObject({ sent: 1, failed: 2, unknown: 2, queued: 2 });
        await expect(ledger.settle(job(99), sentAs('w99'), NUMBER)).rejects.toThrow(/no row 99/);
      });
    });

    describe('claim, settle, halt, park', () => {
      it('a settled row answers first, to any job; a non-owner is stale, even while the owner is in doubt; attempts add up', async () => {
        await campaign(2);
        expect(await ledger.claim(job(1), NUMBER)).toMatchObject({ outcome: 'claimed', attempt: 1 });
        await ledger.settle(job(1), { status: 'queued', errorCode: '131000', errorDetail: 'try again' }, NUMBER);
        expect(await counts()).toMatchObject({ queued: 2, sending: 0 });
        expect(await ledger.claim(job(1), NUMBER)).toMatchObject({ outcome: 'claimed', attempt: 2 });
        await ledger.settle(job(1), sentAs('wamid.1'), NUMBER);
        expect(await ledger.claim(job(1), NUMBER)).toEqual({ outcome: 'settled', status: 'sent' });
        expect(await ledger.claim(job(1, 7), NUMBER)).toEqual({ outcome: 'settled', status: 'sent' });
        expect(await row(1)).toEqual({ row: 1, phone: phoneNumber(1), status: 'sent', attempts: 2, wamid: 'wamid.1' });

        await ledger.claim(job(2), NUMBER);
        expect(await ledger.claim(job(2, 1), NUMBER)).toEqual({ outcome: 'stale' });
        expect(await ledger.claim(job(2), NUMBER)).toEqual({ outcome: 'in-doubt', attempts: 1 });
        expect(await counts()).toMatchObject({ sending: 1, sent: 1 });
      });

      it('keeps the first final answer; an answer from a job that does not own the row changes nothing', async () => {
        await campaign(1);
        await ledger.claim(job(1), NUMBER);
        expect(await ledger.settle(job(1, 1), sentAs('wamid.x'), NUMBER)).toEqual({
          status: 'sending',
          completedCampaign: false,
          pausedCampaign: false,
        });
        expect(await ledger.settle(job(1), sentAs('wamid.first'), NUMBER)).toEqual({
          status: 'sent',
          completedCampaign: true,
          pausedCampaign: false,
        });
        expect(await ledger.settle(job(1), failedWith('131000', 'late'), NUMBER)).toEqual({
          status: 'sent',
          completedCampaign: false,
          pausedCampaign: false,
        });
        expect(
          await ledger.settle(job(1), { status: 'unknown', errorCode: 'SHUTDOWN_IN_FLIGHT', errorDetail: 'late' }, NUMBER),
        ).toMatchObject({ status: 'sent' });
        expect(await ledger.settle(job(1), sentAs('wamid.second'), NUMBER)).toMatchObject({ status: 'sent', completedCampaign: false });
        expect(await row(1)).toEqual({ row: 1, phone: phoneNumber(1), status: 'sent', attempts: 1, wamid: 'wamid.first' });
        expect(await counts()).toMatchObject({ sent: 1, failed: 0, unknown: 0 });
      });

      it('abandoned: unknown when the row was sending, failed when waiting; an error code stays until a send clears it', async () => {
        await campaign(3);
        await ledger.claim(job(1), NUMBER);
        await ledger.claim(job(2), NUMBER);
        await ledger.settle(job(2), { status: 'queued', errorCode: '131000', errorDetail: 'backing off' }, NUMBER);
        expect(await row(2)).toMatchObject({ status: 'queued', errorCode: '131000', errorDetail: 'backing off' });
        const gaveUp = { status: 'abandoned', errorCode: 'WORKER_GAVE_UP', errorDetail: 'job stalled' } as const;
        expect((await ledger.settle(job(1), gaveUp, NUMBER)).status).toBe('unknown');
        expect((await ledger.settle(job(2), gaveUp, NUMBER)).status).toBe('failed');
        expect(await row(1)).toMatchObject({ status: 'unknown', errorCode: 'WORKER_GAVE_UP' });
        expect(await row(2)).toMatchObject({ status: 'failed', errorCode: 'WORKER_GAVE_UP', errorDetail: 'job stalled' });

        await ledger.claim(job(3), NUMBER);
        await ledger.settle(job(3), { status: 'queued', errorCode: '131000', errorDetail: 'again' }, NUMBER);
        await ledger.claim(job(3), NUMBER);
        await ledger.settle(job(3), sentAs('w3'), NUMBER);
        expect(await row(3)).toEqual({ row: 3, phone: phoneNumber(3), status: 'sent', attempts: 2, wamid: 'w3' });
        expect(await counts()).toMatchObject({ unknown: 1, failed: 1, sent: 1, queued: 0, sending: 0 });
      });

      it(
        'halt: the claimed row goes back to queued under a new job number at the front of the backlog; ' +
          'the campaign pauses with `code: detail`, the first reason stays',
        async () => {
          await campaign(3, { fed: 2 });
          await ledger.claim(job(1), NUMBER);
          await ledger.claim(job(2), NUMBER);
          const before = clock.now();
          expect(await ledger.halt(job(1), '190', TOKEN_DETAIL, NUMBER)).toEqual({ completedCampaign: false, pausedCampaign: true });
          const status = await ledger.status(ID);
          expect(status).toMatchObject({
            state: 'paused',
            pausedReason: `190: ${TOKEN_DETAIL}`,
            counts: { queued: 2, sending: 1, failed: 0 },
          });
          expect(status?.pausedAt).toBeGreaterThanOrEqual(before);
          expect(await row(1)).toEqual({
            row: 1,
            phone: phoneNumber(1),
            status: 'queued',
            attempts: 1,
            errorCode: '190',
            errorDetail: TOKEN_DETAIL,
            requeue: 1,
          });
          expect(await ledger.halt(job(2), '131031', 'Business account locked', NUMBER)).toEqual({
            completedCampaign: false,
            pausedCampaign: false,
          });
          expect((await ledger.status(ID))?.pausedReason).toBe(`190: ${TOKEN_DETAIL}`);
          expect(await ledger.windowSize(NUMBER)).toBe(0);
          expect((await feed()).jobs).toEqual([]);
          await ledger.resume(ID);
          const { jobs } = await feed();
          // Parked rows wait at the front of the backlog, in no promised order among themselves.
          expect(jobs.slice(0, 2).sort((a, b) => a.row - b.row)).toEqual([job(1, 1), job(2, 1)]);
          expect(jobs.slice(2)).toEqual([job(3)]);
          expect(await ledger.claim(job(1, 1), NUMBER)).toMatchObject({ outcome: 'claimed', attempt: 2 });
        },
      );

      it('halt does nothing to a row that is not sending or not owned by the job (nor to a row that is not there)', async () => {
        await campaign(2);
        expect(await ledger.halt(job(1), '190', TOKEN_DETAIL, NUMBER)).toEqual({ completedCampaign: false, pausedCampaign: false });
        await ledger.claim(job(2), NUMBER);
        expect(await ledger.halt(job(2, 3), '190', TOKEN_DETAIL, NUMBER)).toEqual({ completedCampaign: false, pausedCampaign: false });
        expect(await ledger.halt(job(42), '190', TOKEN_DETAIL, NUMBER)).toEqual({ completedCampaign: false, pausedCampaign: false });
        expect(await ledger.status(ID)).toMatchObject({ state: 'running', counts: { queued: 1, sending: 1 } });
        expect((await row(1)).requeue).toBeUndefined();
        // Row 1's job ended with the halt (it freed its place); row 2's runs on.
        expect(await ledger.windowSize(NUMBER)).toBe(1);
      });

      it('halt on a cancelled campaign cancels the row and completes the campaign when it was the last open row', async () => {
        await campaign(2);
        await ledger.claim(job(1), NUMBER);
        await answer(job(2), sentAs('wamid.2'));
        expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 0 });
        expect(await ledger.halt(job(1), '190', TOKEN_DETAIL, NUMBER)).toEqual({ completedCampaign: true, pausedCampaign: false });
        const status = await ledger.status(ID);
        expect(status).toMatchObject({ state: 'cancelled', counts: { sent: 1, cancelled: 1, sending: 0, queued: 0 } });
        expect(status?.finishedAt).toBeTypeOf('number');
        expect(await row(1)).toMatchObject({ status: 'cancelled', errorCode: '190' });
      });

      it(
        'on a paused campaign a claim parks the row (queued, next job number, front of the ' +
          'backlog); a row left sending is in doubt, never parked',
        async () => {
          await campaign(4, { fed: 3 });
          await ledger.claim(job(1), NUMBER);
          await ledger.pause(ID, 'x');
          expect(await ledger.isHeld(ID)).toBe(true);
          expect(await ledger.claim(job(1), NUMBER)).toEqual({ outcome: 'in-doubt', attempts: 1 });
          expect(await ledger.claim(job(3), NUMBER)).toEqual({ outcome: 'parked' });
          expect(await row(3)).toEqual({ row: 3, phone: phoneNumber(3), status: 'queued', attempts: 0, requeue: 1 });
          expect(await ledger.claim(job(3), NUMBER)).toEqual({ outcome: 'stale' });
          expect(await counts()).toMatchObject({ queued: 3, sending: 1 });
          expect((await feed()).jobs).toEqual([]);
          await ledger.resume(ID);
          expect((await feed()).jobs).toEqual([job(3, 1), job(4)]);
          // Parked again by a second pause: the next job number.
          await ledger.pause(ID, 'again');
          expect(await ledger.claim(job(3, 1), NUMBER)).toEqual({ outcome: 'parked' });
          await ledger.resume(ID);
          expect((await feed()).jobs).toEqual([job(3, 2)]);
        },
      );

      it('a campaign paused while its last rows were in flight completes when they answer: the pause is lifted', async () => {
        await campaign(2);
        await ledger.claim(job(1), NUMBER);
        await ledger.claim(job(2), NUMBER);
        expect(await ledger.pause(ID, 'operator')).toEqual({ outcome: 'paused' });
        await ledger.settle(job(1), sentAs('w1'), NUMBER);
        expect((await ledger.status(ID))?.state).toBe('paused');
        expect((await ledger.settle(job(2), sentAs('w2'), NUMBER)).completedCampaign).toBe(true);
        expect(await ledger.status(ID)).toMatchObject({ state: 'completed', pausedReason: undefined, pausedAt: undefined });
        expect(await ledger.isHeld(ID)).toBe(false);
      });
    });

    describe('the error-spike brake', () => {
      const brake = { window: 10, failureShare: 0.2 };
      const fail = failedWith('132000', 'Number of parameters does not match');

      it('pauses on the 3rd failure among the last 10 sends with an ERROR_SPIKE reason; resume starts the window empty', async () => {
        const { ledger: braked } = open({ autoPause: brake });
        await campaign(30, { on: braked });
        const send = (n: number, failed: boolean) => answer(job(n), failed ? fail : sentAs(`w${n}`), braked);
        for (const n of [1, 2]) expect((await send(n, true)).pausedCampaign).toBe(false);
        for (const n of range(3, 11)) expect((await send(n, false)).pausedCampaign).toBe(false);
        // 4th and 5th failures overall, the 1st and 2nd in the window.
        expect((await send(12, true)).pausedCampaign).toBe(false);
        expect((await send(13, true)).pausedCampaign).toBe(false);
        // Row 15's request is out when row 14's failure trips the brake.
        expect(await braked.claim(job(15), NUMBER)).toMatchObject({ outcome: 'claimed' });
        expect((await send(14, true)).pausedCampaign).toBe(true);
        expect((await braked.status(ID))?.pausedReason).toMatch(
          /^ERROR_SPIKE: 3 of the last 10 sends failed permanently \(latest 132000: Number of parameters does not match\)$/,
        );

        // The send in flight failing afterwards does not pause it again or change the reason.
        expect(await braked.pause(ID, 'x')).toEqual({ outcome: 'already-paused' });
        expect((await braked.settle(job(15), fail, NUMBER)).pausedCampaign).toBe(false);
        expect((await braked.status(ID))?.pausedReason).toMatch(/^ERROR_SPIKE: 3 of/);

        expect((await braked.resume(ID)).outcome).toBe('resumed');
        expect((await send(16, true)).pausedCampaign).toBe(false);
        expect((await send(17, true)).pausedCampaign).toBe(false);
        expect((await send(18, true)).pausedCampaign).toBe(true);
      });

      it('unknown answers and retrying rows do not feed it; a waiting row abandoned (failed) does; without the setting, off', async () => {
        const { ledger: braked } = open({ autoPause: brake });
        await campaign(20, { on: braked });
        for (const n of range(1, 5)) await answer(job(n), { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'x' }, braked);
        for (const n of range(6, 10)) await answer(job(n), { status: 'queued', errorCode: '131000', errorDetail: 'x' }, braked);
        expect((await braked.status(ID))?.state).toBe('running');
        const gaveUp = { status: 'abandoned', errorCode: 'WORKER_GAVE_UP', errorDetail: 'stalled' } as const;
        expect((await braked.settle(job(6), gaveUp, NUMBER)).pausedCampaign).toBe(false);
        expect((await braked.settle(job(7), gaveUp, NUMBER)).pausedCampaign).toBe(false);
        expect(await braked.settle(job(8), gaveUp, NUMBER)).toEqual({ status: 'failed', completedCampaign: false, pausedCampaign: true });

        await campaign(20);
        for (const n of range(1, 20)) expect((await answer(job(n), fail)).pausedCampaign).toBe(false);
        expect((await ledger.status(ID))?.state).toBe('completed');
      });

      it('tripped by the campaign’s last answer: that answer reports both, and the completed campaign is not left paused', async () => {
        const { ledger: braked } = open({ autoPause: { window: 2, failureShare: 0.5 } });
        await campaign(2, { on: braked });
        await answer(job(1), fail, braked);
        expect(await answer(job(2), fail, braked)).toEqual({ status: 'failed', completedCampaign: true, pausedCampaign: true });
        expect(await braked.status(ID)).toMatchObject({ state: 'completed', pausedReason: undefined });
        expect(await braked.isHeld(ID)).toBe(false);
      });
    });

    describe('pause, resume, cancel, retry', () => {
      it('a campaign that does not exist: missing', async () => {
        expect(await ledger.pause('nope', 'x')).toEqual({ outcome: 'missing' });
        expect(await ledger.resume('nope')).toEqual({ outcome: 'missing' });
        expect(await ledger.cancel('nope')).toEqual({ outcome: 'missing' });
        expect(await ledger.reschedule('nope', clock.now())).toEqual({ outcome: 'missing' });
        expect(await ledger.status('nope')).toBeUndefined();
        expect(await ledger.isHeld('nope')).toBe(false);
        expect(await rowsOf('nope')).toEqual([]);
        await expect(ledger.claim(job(1, undefined, 'nope'))).rejects.toThrow(/no row 1 in campaign nope/);
      });

      it('running: paused, already-paused (first reason kept), resumed, not-paused', async () => {
        await campaign(1);
        expect(await ledger.resume(ID)).toEqual({ outcome: 'not-paused' });
        const before = clock.now();
        expect(await ledger.pause(ID, 'first')).toEqual({ outcome: 'paused' });
        expect(await ledger.pause(ID, 'second')).toEqual({ outcome: 'already-paused' });
        const paused = await ledger.status(ID);
        expect(paused).toMatchObject({ state: 'paused', pausedReason: 'first' });
        expect(paused?.pausedAt).toBeGreaterThanOrEqual(before);
        expect(paused?.pausedAt).toBeLessThanOrEqual(clock.now());
        expect(await ledger.resume(ID)).toEqual({ outcome: 'resumed' });
        expect(await ledger.status(ID)).toMatchObject({ state: 'running', pausedReason: undefined, pausedAt: undefined });
        expect(await ledger.isHeld(ID)).toBe(false);
      });

      it('completed: pause and cancel refuse, resume is not-paused', async () => {
        await campaign(1);
        await answer(job(1), sentAs('w'));
        expect(await ledger.pause(ID, 'x')).toEqual({ outcome: 'completed' });
        expect(await ledger.cancel(ID)).toEqual({ outcome: 'completed' });
        expect(await ledger.resume(ID)).toEqual({ outcome: 'not-paused' });
        expect((await ledger.status(ID))?.state).toBe('completed');
      });

      it(
        'cancelled: pause and resume refuse; cancel again cancels nothing more, even once ' +
          'finished; cancelling a paused campaign lifts the pause',
        async () => {
          await campaign(2, { fed: 1 });
          await ledger.pause(ID, 'x');
          expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 1 });
          expect(await ledger.status(ID)).toMatchObject({
            state: 'cancelled',
            pausedReason: undefined,
            finishedAt: undefined,
            counts: { queued: 1, cancelled: 1 },
          });
          expect(await ledger.pause(ID, 'y')).toEqual({ outcome: 'cancelled' });
          expect(await ledger.resume(ID)).toEqual({ outcome: 'cancelled' });
          expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 0 });
          expect(await ledger.isHeld(ID)).toBe(true);
          expect(await ledger.claim(job(1), NUMBER)).toEqual({ outcome: 'settled', status: 'cancelled', completedCampaign: true });
          expect((await ledger.status(ID))?.finishedAt).toBeTypeOf('number');
          expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 0 });
          expect(await ledger.pause(ID, 'y')).toEqual({ outcome: 'cancelled' });
          expect(await counts()).toMatchObject({ total: 2, queued: 0, cancelled: 2 });
        },
      );

      it(
        'cancel takes the backlog as a block (parked rows too): rows() reports them cancelled at once; ' +
          'fed rows are cancelled at their claim; rows in flight keep their answer',
        async () => {
          await campaign(6, { fed: 3 });
          await answer(job(1), sentAs('w1'));
          await ledger.claim(job(2), NUMBER);
          await ledger.pause(ID, 'x');
          expect(await ledger.claim(job(3), NUMBER)).toEqual({ outcome: 'parked' });

          expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 4 });
          expect(await ledger.status(ID)).toMatchObject({
            finishedAt: undefined,
            counts: { sent: 1, sending: 1, cancelled: 4, queued: 0 },
          });
          expect(await statuses()).toEqual(['sent', 'sending', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
          expect((await feed()).jobs).toEqual([]);
          // The send in flight keeps its answer, and it is the last one: the campaign completes.
          expect(await ledger.settle(job(2), sentAs('w2'), NUMBER)).toEqual({
            status: 'sent',
            completedCampaign: true,
            pausedCampaign: false,
          });
          expect(await ledger.status(ID)).toMatchObject({
            state: 'cancelled',
            counts: { total: 6, sent: 2, cancelled: 4, queued: 0, sending: 0 },
          });
        },
      );

      it('cancel completes the campaign at once when nothing was fed; a fed row completes it at its claim', async () => {
        await campaign(3, { fed: 0 });
        const before = clock.now();
        expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 3 });
        const status = await ledger.status(ID);
        expect(status).toMatchObject({ state: 'cancelled', counts: { total: 3, queued: 0, cancelled: 3 } });
        expect(status?.finishedAt).toBeGreaterThanOrEqual(before);

        await campaign(3, { id: 'fed' });
        await answer(jobOf('fed', 1), sentAs('w1'));
        expect(await ledger.cancel('fed')).toEqual({ outcome: 'cancelled', cancelled: 0 });
        // Fed, not claimed yet: reported cancelled, counted queued until the claim.
        expect(await statuses('fed')).toEqual(['sent', 'cancelled', 'cancelled']);
        expect(await counts('fed')).toMatchObject({ queued: 2, cancelled: 0 });
        expect(await ledger.claim(jobOf('fed', 2), NUMBER)).toEqual({ outcome: 'settled', status: 'cancelled' });
        expect((await ledger.status('fed'))?.finishedAt).toBeUndefined();
        expect(await ledger.claim(jobOf('fed', 3), NUMBER)).toEqual({ outcome: 'settled', status: 'cancelled', completedCampaign: true });
        expect(await counts('fed')).toMatchObject({ total: 3, sent: 1, cancelled: 2, queued: 0 });
      });

      it(
        'retry chooses failed rows by code, any failed row, or unknown ones; puts them at the end of ' +
          'the backlog under new job numbers; reopens a finished campaign',
        async () => {
          await campaign(6, { extra: [rejected(7)] });
          await answer(job(1), failedWith('131000', 'Something went wrong'));
          await answer(job(2), failedWith('132000', 'params'));
          await answer(job(3), { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'maybe' });
          await answer(job(4), sentAs('w4'));
          await answer(job(5), failedWith('131000', 'Something went wrong'));
          await answer(job(6), failedWith('131026', 'undeliverable'));
          expect((await ledger.status(ID))?.state).toBe('completed');
          expect(await ledger.markForRetry(ID, 1, 7, { codes: [], failed: false, unknown: false })).toEqual({
            requeued: 0,
            noPayload: 0,
            held: 0,
            heldUntil: 0,
            usMarketing: 0,
            optedOut: 0,
            experiment: 0,
          });

          // Rows 1..4 only in this page.
          expect(await ledger.markForRetry(ID, 1, 4, { codes: ['131000'], failed: true, unknown: false })).toEqual({
            requeued: 1,
            noPayload: 0,
            held: 0,
            heldUntil: 0,
            usMarketing: 0,
            optedOut: 0,
            experiment: 0,
          });
          expect(await ledger.status(ID)).toMatchObject({
            state: 'running',
            finishedAt: undefined,
            counts: { queued: 1, failed: 3, unknown: 1, sent: 1, rejected: 1 },
          });
          expect(await ledger.markForRetry(ID, 1, 4, { codes: ['131000'], failed: true, unknown: false })).toEqual({
            requeued: 0,
            noPayload: 0,
            held: 0,
            heldUntil: 0,
            usMarketing: 0,
            optedOut: 0,
            experiment: 0,
          });
          expect(await ledger.markForRetry(ID, 1, 7, { codes: ['131000', '132000'], failed: false, unknown: true })).toEqual({
            requeued: 1,
            noPayload: 0,
            held: 0,
            heldUntil: 0,
            usMarketing: 0,
            optedOut: 0,
            experiment: 0,
          });
          expect(await ledger.markForRetry(ID, 1, 7, { codes: ['132000', '131026'], failed: true, unknown: false })).toEqual({
            requeued: 2,
            noPayload: 0,
            held: 0,
            heldUntil: 0,
            usMarketing: 0,
            optedOut: 0,
            experiment: 0,
          });
          expect(await ledger.markForRetry(ID, 1, 7, { codes: [], failed: true, unknown: false })).toEqual({
            requeued: 1,
            noPayload: 0,
            held: 0,
            heldUntil: 0,
            usMarketing: 0,
            optedOut: 0,
            experiment: 0,
          });
          expect(await counts()).toMatchObject({ queued: 5, failed: 0, unknown: 0, sent: 1, rejected: 1, total: 7 });
          expect((await feed()).jobs).toEqual([job(1, 1), job(3, 1), job(2, 1), job(6, 1), job(5, 1)]);
          expect(await ledger.claim(job(2), NUMBER)).toEqual({ outcome: 'stale' });
          expect(await ledger.claim(job(1, 1), NUMBER)).toMatchObject({ outcome: 'claimed', attempt: 2 });
          await ledger.settle(job(1, 1), sentAs('w1b'), NUMBER);
          // The error of the failed attempt goes with the send.
          expect(await row(1)).toEqual({ row: 1, phone: phoneNumber(1), status: 'sent', attempts: 2, wamid: 'w1b', requeue: 1 });
        },
      );

      it('retry on a paused campaign waits for resume; on a cancelled one it moves nothing', async () => {
        await campaign(2);
        await answer(job(1), failedWith('131000'));
        await ledger.pause(ID, 'x');
        expect(await ledger.markForRetry(ID, 1, 2, { codes: [], failed: true, unknown: true })).toEqual({
          requeued: 1,
          noPayload: 0,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        expect((await feed()).jobs).toEqual([]);
        await ledger.resume(ID);
        expect((await feed()).jobs).toEqual([job(1, 1)]);
        await answer(job(1, 1), failedWith('131000'));

        await ledger.cancel(ID);
        await ledger.claim(job(2), NUMBER);
        expect(await ledger.markForRetry(ID, 1, 2, { codes: [], failed: true, unknown: true })).toEqual({
          requeued: 0,
          noPayload: 0,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        expect((await row(1)).status).toBe('failed');
        expect(await ledger.status(ID)).toMatchObject({ state: 'cancelled', counts: { failed: 1, cancelled: 1 } });
      });
    });

    describe('schedule, start deadline, expiry', () => {
      it('nothing is fed before the start; `scheduled` until then; at the start rows are fed and the start reported once', async () => {
        const t = clock.now();
        await campaign(3, { id: 'later', define: { startsAt: t + HOUR }, fed: 0 });
        expect(await ledger.status('later')).toMatchObject({ state: 'scheduled', startsAt: t + HOUR, startedAt: undefined });
        expect(await feed(100, { at: t + HOUR - 1 })).toEqual({ jobs: [], refresh: [], events: [] });
        const first = await feed(100, { at: t + HOUR });
        expect(first.jobs).toEqual(range(1, 3).map((n) => jobOf('later', n)));
        expect(first.events).toEqual([{ kind: 'started', campaignId: 'later', startsAt: t + HOUR, at: t + HOUR }]);
        expect(await ledger.status('later')).toMatchObject({ state: 'running', startedAt: t + HOUR });
        await campaign(1, { id: 'more', fed: 0 });
        expect((await feed(100, { at: t + HOUR + 1 })).events).toEqual([
          { kind: 'started', campaignId: 'more', startsAt: undefined, at: t + HOUR + 1 },
        ]);
      });

      it('a start that passed while nothing fed is fed late; the event carries both times', async () => {
        const t = clock.now();
        await campaign(2, { define: { startsAt: t - 90 * MINUTE }, fed: 0 });
        expect((await ledger.status(ID))?.state).toBe('running');
        const late = await feed(100, { at: t });
        expect(late.jobs).toHaveLength(2);
        expect(late.events).toEqual([{ kind: 'started', campaignId: ID, startsAt: t - 90 * MINUTE, at: t }]);
      });

      it(
        'not started by its deadline: cancelled with that reason, its backlog with it, the campaign ' +
          'finished; started in time, the deadline no longer applies',
        async () => {
          const t = clock.now();
          await campaign(4, { id: 'deadline', define: { startsAt: t + HOUR, startDeadline: t + HOUR + 10 * MINUTE }, fed: 0 });
          expect((await feed(100, { at: t + HOUR + 10 * MINUTE + 1 })).events).toEqual([
            { kind: 'deadline', campaignId: 'deadline', rows: 4 },
            { kind: 'completed', campaignId: 'deadline' },
          ]);
          const status = await ledger.status('deadline');
          expect(status).toMatchObject({
            state: 'cancelled',
            cancelReason: `START_DEADLINE: not started by ${t + HOUR + 10 * MINUTE}`,
            finishedAt: t + HOUR + 10 * MINUTE + 1,
          });
          expect(status?.counts).toMatchObject({ total: 4, queued: 0, cancelled: 4 });
          expect(await statuses('deadline')).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled']);

          await campaign(2, { id: 'in-time', define: { startsAt: t + HOUR, startDeadline: t + HOUR + 10 * MINUTE }, fed: 0 });
          expect((await feed(1, { at: t + HOUR + MINUTE })).jobs).toEqual([jobOf('in-time', 1)]);
          expect(await feed(100, { at: t + HOUR + 20 * MINUTE })).toMatchObject({ jobs: [jobOf('in-time', 2)], events: [] });
          expect((await ledger.status('in-time'))?.state).toBe('running');
        },
      );

      it('a paused campaign is not started, so its deadline cancels it (lifting the pause) once the deadline has passed', async () => {
        const t = clock.now();
        await campaign(1, { define: { startDeadline: t + MINUTE }, fed: 0, finish: false });
        await ledger.pause(ID, 'x');
        expect((await feed(100, { at: t + MINUTE })).events).toEqual([]);
        expect((await feed(100, { at: t + MINUTE + 1 })).events).toEqual([{ kind: 'deadline', campaignId: ID, rows: 1 }]);
        // Still ingesting, so not complete: the pause is lifted by the cancel itself.
        expect(await ledger.status(ID)).toMatchObject({
          state: 'cancelled',
          pausedReason: undefined,
          pausedAt: undefined,
          finishedAt: undefined,
        });
        expect(await ledger.resume(ID)).toEqual({ outcome: 'cancelled' });
        expect(await ledger.finishIngest(ID)).toBe(true);
      });

      it('a deadline that cancels an interrupted ingest ends the ingest too, as a cancel does: the campaign is finished', async () => {
        const t = clock.now();
        await campaign(2, { define: { startDeadline: t + MINUTE }, fed: 0, finish: false });
        expect(await ledger.markIngestInterrupted(ID, 'ingest interrupted at row 2')).toBe(true);
        expect((await feed(100, { at: t + MINUTE + 1 })).events).toEqual([
          { kind: 'deadline', campaignId: ID, rows: 2 },
          { kind: 'completed', campaignId: ID },
        ]);
        expect(await ledger.status(ID)).toMatchObject({ state: 'cancelled', ingestInterrupted: false, finishedAt: t + MINUTE + 1 });
      });

      it('at expiry the rows not fed expire as a block; rows fed before expire at their claim; the campaign completes', async () => {
        const t = clock.now();
        const expiresAt = t + HOUR;
        await campaign(5, { id: 'sale', define: { expiresAt }, fed: 0 });
        expect((await feed(3, { at: t })).jobs).toEqual([jobOf('sale', 1), jobOf('sale', 2), jobOf('sale', 3)]);
        await answer(jobOf('sale', 1), sentAs('w1'));
        // A claim just before the expiry sends; once it has come on the ledger's clock a claim
        // expires its row, whether or not a feed has seen the expiry yet.
        clock.set(expiresAt - 1);
        expect(await ledger.claim(jobOf('sale', 2), NUMBER)).toMatchObject({ outcome: 'claimed' });
        await ledger.settle(jobOf('sale', 2), { status: 'queued', errorCode: '131000', errorDetail: 'again' }, NUMBER);
        clock.set(expiresAt);
        expect(await ledger.claim(jobOf('sale', 2), NUMBER)).toEqual({ outcome: 'settled', status: 'expired' });
        expect(await statuses('sale')).toEqual(['sent', 'expired', 'queued', 'queued', 'queued']);
        expect((await feed(100, { at: expiresAt })).events).toEqual([{ kind: 'expired', campaignId: 'sale', rows: 2 }]);
        expect(await ledger.status('sale')).toMatchObject({ state: 'running', counts: { queued: 1, sent: 1, expired: 3 } });
        // Row 3 is fed and not claimed yet: reported expired already; its claim is the campaign's last open row.
        expect(await statuses('sale')).toEqual(['sent', 'expired', 'expired', 'expired', 'expired']);
        expect(await ledger.claim(jobOf('sale', 3), NUMBER)).toEqual({ outcome: 'settled', status: 'expired', completedCampaign: true });
        expect(await ledger.status('sale')).toMatchObject({ state: 'completed', counts: { total: 5, queued: 0, sent: 1, expired: 4 } });
        expect(await ledger.windowSize(NUMBER)).toBe(0);
      });

      it('an expiry that finds nothing left to feed reports no event, and leaves the rows fed before to their claims', async () => {
        const t = clock.now();
        await campaign(1, { define: { expiresAt: t + HOUR }, fed: 0 });
        expect((await feed(100, { at: t })).jobs).toEqual([job(1)]);
        expect(await feed(100, { at: t + HOUR })).toEqual({ jobs: [], refresh: [], events: [] });
        expect(await ledger.status(ID)).toMatchObject({ state: 'running', counts: { queued: 1, expired: 0 } });
      });

      it('a paused campaign expires too (completing lifts the pause); rows retried after the expiry expire at the next feed', async () => {
        const t = clock.now();
        await campaign(2, { define: { expiresAt: t + HOUR }, fed: 0 });
        expect((await feed(1, { at: t })).jobs).toEqual([job(1)]);
        await answer(job(1), failedWith('131000'));
        await ledger.pause(ID, 'x');
        expect((await feed(100, { at: t + HOUR })).events).toEqual([
          { kind: 'expired', campaignId: ID, rows: 1 },
          { kind: 'completed', campaignId: ID },
        ]);
        expect(await ledger.status(ID)).toMatchObject({ state: 'completed', pausedReason: undefined, finishedAt: t + HOUR });
        expect(await ledger.markForRetry(ID, 1, 2, { codes: [], failed: true, unknown: false })).toEqual({
          requeued: 1,
          noPayload: 0,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        expect((await ledger.status(ID))?.state).toBe('running');
        expect((await feed(100, { at: t + HOUR + 1 })).events).toEqual([
          { kind: 'expired', campaignId: ID, rows: 1 },
          { kind: 'completed', campaignId: ID },
        ]);
        expect(await ledger.status(ID)).toMatchObject({ state: 'completed', counts: { total: 2, queued: 0, expired: 2, failed: 0 } });
        expect(await statuses()).toEqual(['expired', 'expired']);
      });

      it('reschedule moves a start that has not come; refused once started, for a cancelled or completed campaign', async () => {
        const t = clock.now();
        await campaign(1, { id: 'moved', define: { startsAt: t + HOUR }, fed: 0 });
        expect(await ledger.reschedule('moved', t + 2 * HOUR)).toEqual({ outcome: 'rescheduled' });
        expect(await ledger.status('moved')).toMatchObject({ state: 'scheduled', startsAt: t + 2 * HOUR });
        expect((await feed(100, { at: t + HOUR })).jobs).toEqual([]);
        expect((await feed(100, { at: t + 2 * HOUR })).jobs).toEqual([jobOf('moved', 1)]);
        expect(await ledger.reschedule('moved', t + 3 * HOUR)).toEqual({ outcome: 'started' });

        await campaign(1, { id: 'dropped', define: { startsAt: t + HOUR }, fed: 0 });
        expect(await ledger.cancel('dropped')).toEqual({ outcome: 'cancelled', cancelled: 1 });
        expect(await ledger.reschedule('dropped', t)).toEqual({ outcome: 'cancelled' });

        await ledger.createCampaign({ ...ledgerTestDefinition('empty'), startsAt: t + HOUR });
        await ledger.recordIngested('empty', NUMBER, [rejected(1)]);
        await ledger.finishIngest('empty');
        expect(await ledger.reschedule('empty', t)).toEqual({ outcome: 'completed' });
        // Without a start before, a campaign that has not started can be given one.
        await campaign(1, { id: 'unscheduled', fed: 0 });
        expect(await ledger.reschedule('unscheduled', clock.now() + HOUR)).toEqual({ outcome: 'rescheduled' });
        expect((await ledger.status('unscheduled'))?.state).toBe('scheduled');
      });
    });

    describe('send-window lanes', () => {
      const WINDOW = parseSendWindow('09:00-20:00', undefined, CLI_FIELD_NAMES);
      const LANES = [['Europe/Berlin'], ['America/New_York'], ['Asia/Tokyo']];

      /** A campaign with a send window: rows 1..n in lane (row - 1) % 3 (Berlin, New York, Tokyo, Berlin, …); nothing fed. */
      async function windowed(id: string, rows: number, more: Partial<CampaignDefinition> = {}): Promise<void> {
        await ledger.createCampaign({ ...ledgerTestDefinition(id), window: WINDOW, ...more });
        await ledger.recordLanes(
          id,
          LANES.map((zones, index) => ({ index, zones })),
        );
        await ledger.recordIngested(
          id,
          NUMBER,
          range(1, rows).map((n) => ({ ...(queuedRow(n) as Extract<IngestedRow, { status: 'queued' }>), lane: (n - 1) % 3 })),
        );
        await ledger.finishIngest(id);
      }
      const feedOpen = (open: Record<string, number[]>, size = 100, more: Partial<FeedOptions> & { at?: number } = {}) =>
        feed(size, { openLanes: new Map(Object.entries(open)), ...more });
      const pendingPerLane = async (id: string) => (await ledger.laneBacklogs(id)).map((l) => l.pending);

      it(
        'feeds only the open lanes, their room shared between them; closed lanes wait, take no ' +
          'room, and keep the campaign in its number’s feed',
        async () => {
          await windowed('w', 9);
          expect(await ledger.lanes('w')).toEqual(LANES);
          expect(await ledger.lanes('nope')).toEqual([]);
          expect((await feedOpen({ w: [0] })).jobs).toEqual([1, 4, 7].map((n) => jobOf('w', n)));
          expect((await feedOpen({ w: [] })).jobs).toEqual([]);
          expect((await feedOpen({})).jobs).toEqual([]);
          expect(await ledger.laneBacklogs('w')).toEqual([
            { lane: 0, zones: ['Europe/Berlin'], pending: 0 },
            { lane: 1, zones: ['America/New_York'], pending: 3 },
            { lane: 2, zones: ['Asia/Tokyo'], pending: 3 },
          ]);
          const before = clock.now();
          const windowedNow = await ledger.windowedCampaigns(NUMBER);
          expect(windowedNow.campaigns).toEqual([{ campaignId: 'w', window: WINDOW, lanes: LANES }]);
          // The ledger's clock: the feeder works out the open lanes by it.
          expect(windowedNow.now).toBe(before);
          // Room 4 over two open lanes: 2 each, the lower lane first.
          expect((await feedOpen({ w: [1, 2] }, 7)).jobs).toEqual([2, 5, 3, 6].map((n) => jobOf('w', n)));
          // Room 5 over two lanes of one row each: each gives what it has.
          expect((await feedOpen({ w: [1, 2] }, 12)).jobs).toEqual([8, 9].map((n) => jobOf('w', n)));
          expect(await pendingPerLane('w')).toEqual([0, 0, 0]);
          // Nothing waits any more: the campaign leaves its number's feed.
          expect((await feedOpen({ w: [0, 1, 2] })).jobs).toEqual([]);
          expect((await ledger.windowedCampaigns(NUMBER)).campaigns).toEqual([]);
        },
      );

      it('a campaign without a window ignores the open lanes; one with a window shares the room with it like any other', async () => {
        await windowed('w', 6);
        await campaign(4, { id: 'plain', fed: 0 });
        expect((await ledger.windowedCampaigns(NUMBER)).campaigns.map((c) => c.campaignId)).toEqual(['w']);
        expect(await ledger.laneBacklogs('plain')).toEqual([]);
        const { jobs } = await feedOpen({ w: [0, 2] }, 6, { at: 2 * Math.floor(clock.now() / 2) });
        expect(jobs).toEqual([jobOf('plain', 1), jobOf('w', 1), jobOf('plain', 2), jobOf('w', 3), jobOf('plain', 3), jobOf('w', 4)]);
      });

      it(
        'a row of a windowed campaign without a lane waits in the campaign’s own backlog: no ' +
          'lane counts it, and it is fed whatever lanes are open',
        async () => {
          await windowed('w', 3);
          await ledger.recordIngested('w', NUMBER, [queuedRow(4)]);
          expect(await pendingPerLane('w')).toEqual([1, 1, 1]);
          expect((await feedOpen({})).jobs).toEqual([jobOf('w', 4)]);
          expect((await feedOpen({ w: [1] })).jobs).toEqual([jobOf('w', 2)]);
        },
      );

      it('a parked row goes back to the front of its own lane, a retried one to the end of it', async () => {
        await windowed('p', 6);
        expect((await feedOpen({ p: [1] })).jobs).toEqual([jobOf('p', 2), jobOf('p', 5)]);
        await ledger.pause('p', 'operator');
        expect(await ledger.claim(jobOf('p', 2), NUMBER)).toEqual({ outcome: 'parked' });
        await ledger.resume('p');
        expect(await pendingPerLane('p')).toEqual([2, 1, 2]);
        expect((await feedOpen({ p: [1] })).jobs).toEqual([jobOf('p', 2, 1)]);
        await answer(jobOf('p', 5), failedWith('131000'));
        expect(await ledger.markForRetry('p', 1, 6, { codes: [], failed: true, unknown: false })).toEqual({
          requeued: 1,
          noPayload: 0,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        expect(await pendingPerLane('p')).toEqual([2, 1, 2]);
        expect((await feedOpen({ p: [1] })).jobs).toEqual([jobOf('p', 5, 1)]);
        // A halted row too.
        await ledger.claim(jobOf('p', 5, 1), NUMBER);
        await ledger.halt(jobOf('p', 5, 1), '190', TOKEN_DETAIL, NUMBER);
        expect(await pendingPerLane('p')).toEqual([2, 1, 2]);
      });

      it('cancel and expiry end every lane as a block', async () => {
        await windowed('c', 9);
        await feedOpen({ c: [0] });
        expect(await ledger.cancel('c')).toEqual({ outcome: 'cancelled', cancelled: 6 });
        expect(await pendingPerLane('c')).toEqual([0, 0, 0]);
        expect((await ledger.status('c'))?.counts).toMatchObject({ queued: 3, cancelled: 6 });
        expect(await statuses('c')).toEqual(Array.from({ length: 9 }, () => 'cancelled'));

        const t = clock.now();
        await windowed('e', 6, { expiresAt: t + MINUTE });
        await feedOpen({ e: [2] }, 100, { at: t });
        const expired = await feedOpen({ e: [0, 1, 2] }, 100, { at: t + MINUTE });
        expect(expired).toMatchObject({ jobs: [], events: [{ kind: 'expired', campaignId: 'e', rows: 4 }] });
        expect((await ledger.status('e'))?.counts).toMatchObject({ expired: 4, queued: 2 });
      });
    });

    describe('the messaging limit (unique users in a rolling 24 h)', () => {
      const DAY = 24 * HOUR;

      it('new recipients beyond the limit wait in the backlog, in order, until the rolling 24 h frees their places', async () => {
        await campaign(5, { fed: 0 });
        const t = clock.now();
        const first = await feed(100, { at: t, messagingLimit: 3 });
        expect(first.jobs).toEqual([job(1), job(2), job(3)]);
        expect(first.limitHeld).toEqual({ limit: 3, reached: 3, freesAt: t + DAY });
        // An hour later nobody has left the 24 h: nothing for new recipients, and nothing lost.
        const later = await feed(100, { at: t + HOUR, messagingLimit: 3 });
        expect(later.jobs).toEqual([]);
        expect(later.limitHeld).toEqual({ limit: 3, reached: 3, freesAt: t + DAY });
        expect(await counts()).toMatchObject({ queued: 5, sent: 0 });
        // 24 h after the first sends, their places are free again.
        const next = await feed(100, { at: t + DAY + 1, messagingLimit: 3 });
        expect(next.jobs).toEqual([job(4), job(5)]);
        expect(next.limitHeld).toBeUndefined();
      });

      it(
        'a recipient reached in the last 24 h takes no new place, nor one whose service window ' +
          'is open; a raised limit frees places at once',
        async () => {
          const t = clock.now();
          await campaign(2, { id: 'a', fed: 0 });
          expect((await feed(100, { at: t, messagingLimit: 2 })).jobs).toEqual([jobOf('a', 1), jobOf('a', 2)]);
          // b: row 1 is someone new, rows 2 and 4 are a's recipients again, row 3 wrote to the business (window open).
          await ledger.applyInbound([
            { phoneNumberId: NUMBER, waId: phoneNumber(4).slice(1), wamid: 'in-1', at: clock.now(), optOut: false },
          ]);
          await ledger.createCampaign(ledgerTestDefinition('b'));
          await ledger.recordIngested('b', NUMBER, [
            queuedRow(1, phoneNumber(3)),
            queuedRow(2, phoneNumber(1)),
            queuedRow(3, phoneNumber(4)),
            queuedRow(4, phoneNumber(2)),
          ]);
          await ledger.finishIngest('b');
          const atLimit = await feed(100, { at: t + 1000, messagingLimit: 2 });
          expect(atLimit.jobs).toEqual([jobOf('b', 2), jobOf('b', 3), jobOf('b', 4)]);
          // Reached again at t + 1000: their places are kept a day from then.
          expect(atLimit.limitHeld).toEqual({ limit: 2, reached: 2, freesAt: t + 1000 + DAY });
          expect((await feed(100, { at: t + 2000, messagingLimit: 3 })).jobs).toEqual([jobOf('b', 1)]);
        },
      );

      it('without a limit nothing is counted: a limit set later starts from nobody reached', async () => {
        await campaign(3, { fed: 0 });
        const t = clock.now();
        expect((await feed(2, { at: t })).jobs).toEqual([job(1), job(2)]);
        const limited = await feed(100, { at: t + 1000, messagingLimit: 1 });
        expect(limited.jobs).toEqual([job(3)]);
        expect(limited.limitHeld).toBeUndefined();
      });
    });

    describe('status and rows', () => {
      it('ingesting, paused (while ingesting too), running, completed; counts follow every move', async () => {
        await campaign(2, { finish: false });
        expect(await ledger.status(ID)).toMatchObject({
          id: ID,
          state: 'ingesting',
          priority: 'normal',
          finishedAt: undefined,
          ingestInterrupted: false,
          purgedAt: undefined,
          cancelReason: undefined,
        });
        await ledger.pause(ID, 'hold on');
        expect(await ledger.status(ID)).toMatchObject({ state: 'paused', pausedReason: 'hold on' });
        await ledger.resume(ID);
        expect((await ledger.status(ID))?.state).toBe('ingesting');
        expect(await ledger.finishIngest(ID)).toBe(false);
        expect((await ledger.status(ID))?.state).toBe('running');
        await ledger.claim(job(1), NUMBER);
        expect(await counts()).toEqual({
          total: 2,
          queued: 1,
          sending: 1,
          confirming: 0,
          held: 0,
          sent: 0,
          failed: 0,
          rejected: 0,
          skipped: 0,
          unknown: 0,
          cancelled: 0,
          expired: 0,
          delivered: 0,
          read: 0,
          replied: 0,
        });
        await ledger.settle(job(1), sentAs('w1'), NUMBER);
        const before = clock.now();
        expect((await answer(job(2), failedWith('131026'))).completedCampaign).toBe(true);
        const done = await ledger.status(ID);
        expect(done?.state).toBe('completed');
        expect(done?.finishedAt).toBeGreaterThanOrEqual(before);
        expect(done?.counts).toEqual({
          total: 2,
          queued: 0,
          sending: 0,
          confirming: 0,
          held: 0,
          sent: 1,
          failed: 1,
          rejected: 0,
          skipped: 0,
          unknown: 0,
          cancelled: 0,
          expired: 0,
          delivered: 0,
          read: 0,
          replied: 0,
        });
      });

      it('rows() gives every row in row order, in pages of the size asked for', async () => {
        await campaign(4, { extra: [rejected(5)] });
        await answer(job(1), sentAs('w1'));
        await answer(job(2), failedWith('131026', 'undeliverable'));
        const pages: number[][] = [];
        for await (const page of ledger.rows(ID, 2)) pages.push(page.map((r) => r.row));
        expect(pages).toEqual([[1, 2], [3, 4], [5]]);
        expect(await rowsOf()).toEqual([
          { row: 1, phone: phoneNumber(1), status: 'sent', attempts: 1, wamid: 'w1' },
          { row: 2, phone: phoneNumber(2), status: 'failed', attempts: 1, errorCode: '131026', errorDetail: 'undeliverable' },
          { row: 3, phone: phoneNumber(3), status: 'queued', attempts: 0 },
          { row: 4, phone: phoneNumber(4), status: 'queued', attempts: 0 },
          { row: 5, phone: 'bad', status: 'rejected', attempts: 0, errorCode: 'PHONE_INVALID', errorDetail: 'line 6: bad' },
        ]);
      });
    });

    describe("retry and Meta's ecosystem limit (131049)", () => {
      it('a row that failed with 131049 is held back from retry for 24 h and says until when; other failures are retried', async () => {
        await campaign(2);
        const failedAt = clock.now();
        await answer(job(1), failedWith('131049', 'ecosystem'));
        clock.advance(MINUTE);
        await answer(job(2), failedWith('131026', 'undeliverable'));
        clock.advance(HOUR);
        const page = await ledger.markForRetry(ID, 1, 2, { codes: [], failed: true, unknown: false });
        expect(page).toEqual({
          requeued: 1,
          noPayload: 0,
          held: 1,
          heldUntil: failedAt + 24 * HOUR,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        expect((await row(1)).status).toBe('failed');
        expect((await row(2)).status).toBe('queued');
        // Still held a moment before the 24 h are up; retried once they are.
        clock.set(failedAt + 24 * HOUR - 1);
        expect(await ledger.markForRetry(ID, 1, 1, { codes: [], failed: true, unknown: false })).toMatchObject({ requeued: 0, held: 1 });
        clock.set(failedAt + 24 * HOUR);
        expect(await ledger.markForRetry(ID, 1, 1, { codes: [], failed: true, unknown: false })).toEqual({
          requeued: 1,
          noPayload: 0,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        expect((await row(1)).status).toBe('queued');
      });

      it("a US number's 131049 is never retried when the caller keeps US marketing failures; Canada's and other codes are", async () => {
        const phones = ['+12125550101', '+14165550102', '+12125550103'];
        await campaign(0, { extra: phones.map((phone, i) => queuedRow(i + 1, phone)) });
        await answer(job(1), failedWith('131049', 'ecosystem'));
        await answer(job(2), failedWith('131049', 'ecosystem'));
        await answer(job(3), failedWith('131026', 'undeliverable'));
        clock.advance(25 * HOUR);
        const keep = { codes: [], failed: true, unknown: false, keepUsMarketingFailed: true };
        expect(await ledger.markForRetry(ID, 1, 3, keep)).toEqual({
          requeued: 2,
          noPayload: 0,
          held: 0,
          heldUntil: 0,
          usMarketing: 1,
          optedOut: 0,
          experiment: 0,
        });
        expect((await row(1)).status).toBe('failed');
        expect(await ledger.markForRetry(ID, 1, 3, { ...keep, keepUsMarketingFailed: false })).toMatchObject({
          requeued: 1,
          usMarketing: 0,
          optedOut: 0,
        });
        expect((await row(1)).status).toBe('queued');
      });
    });

    describe('the in-doubt rule (CONFIRM_WINDOW_SECONDS)', () => {
      const CONFIRM_MS = 10 * MINUTE;
      const lost = (code = 'TIMEOUT'): Settlement => ({ status: 'unknown', errorCode: code, errorDetail: 'no answer' });
      const statusOf = (wamid: string, kind: StatusUpdate['kind'], more: Partial<StatusUpdate> = {}): StatusUpdate => ({
        phoneNumberId: NUMBER,
        wamid,
        kind,
        at: clock.now(),
        ...more,
      });
      const nothing = { resent: 0, unknown: 0, ended: 0, heldExpired: 0, completedCampaigns: [] };

      beforeEach(() => {
        ({ ledger, clock } = open({ confirmWindowMs: CONFIRM_MS }));
      });

      it(
        'a row whose answer was lost waits `confirming` (no job may send it, no late answer moves ' +
          'it); a status settles it, and then nothing is left to decide',
        async () => {
          await campaign(2);
          await answer(job(1), lost());
          expect(await row(1)).toMatchObject({ status: 'confirming', errorCode: 'TIMEOUT' });
          expect(await counts()).toMatchObject({ confirming: 1, unknown: 0, sending: 0 });
          expect(await ledger.claim(job(1), NUMBER)).toEqual({ outcome: 'settled', status: 'confirming' });
          expect((await ledger.settle(job(1), failedWith('131000'), NUMBER)).status).toBe('confirming');
          await answer(job(2), sentAs('w2'));
          expect((await ledger.status(ID))?.finishedAt).toBeUndefined();
          const [outcome] = await ledger.applyStatuses([statusOf('w1', 'delivered', { callbackData: `${ID}/1` })]);
          expect(outcome).toEqual({ outcome: 'applied', completedCampaign: true });
          expect(await row(1)).toMatchObject({ status: 'sent', wamid: 'w1' });
          expect(await counts()).toMatchObject({ confirming: 0, sent: 2, delivered: 1 });
          clock.advance(CONFIRM_MS + 50);
          expect(await ledger.confirmInDoubt(NUMBER, 100)).toEqual(nothing);
        },
      );

      it(
        'no status for it while a later send got one: it never reached Meta, so it is sent ' +
          'again once; in doubt a second time, it stays unknown',
        async () => {
          await campaign(2);
          await answer(job(1), lost());
          clock.advance(5);
          await answer(job(2), sentAs('w2'));
          await ledger.applyStatuses([statusOf('w2', 'sent')]);
          expect(await ledger.confirmInDoubt(NUMBER, 100)).toEqual(nothing);
          clock.advance(CONFIRM_MS + 50);
          expect(await ledger.confirmInDoubt(NUMBER, 100)).toEqual({ ...nothing, resent: 1 });
          expect(await row(1)).toMatchObject({ status: 'queued', requeue: 1 });
          expect((await row(1)).errorDetail).toMatch(/never reached Meta: sent again \(once\)/);
          const { jobs } = await feed();
          expect(jobs).toEqual([job(1, 1)]);
          expect((await ledger.claim(job(1, 1), NUMBER)).outcome).toBe('claimed');
          expect((await ledger.settle(job(1, 1), lost(), NUMBER)).status).toBe('confirming');
          clock.advance(CONFIRM_MS + 50);
          expect(await ledger.confirmInDoubt(NUMBER, 100)).toEqual({ ...nothing, unknown: 1, completedCampaigns: [ID] });
          expect(await row(1)).toMatchObject({ status: 'unknown', attempts: 2 });
          expect((await row(1)).errorDetail).toMatch(/resent once already/);
          expect(await ledger.confirmInDoubt(NUMBER, 100)).toEqual(nothing);
        },
      );

      it(
        'a row of a Marketing Messages API campaign (no callback data on its statuses) is never judged to have missed ' +
          'Meta: with later sends answered, it still becomes unknown, not resent',
        async () => {
          await campaign(2, { define: { endpoint: 'marketing-messages' } });
          await answer(job(1), lost());
          clock.advance(5);
          await answer(job(2), sentAs('w2'));
          await ledger.applyStatuses([statusOf('w2', 'sent')]);
          clock.advance(CONFIRM_MS + 50);
          expect(await ledger.confirmInDoubt(NUMBER, 100)).toEqual({ ...nothing, unknown: 1, completedCampaigns: [ID] });
          expect(await row(1)).toMatchObject({ status: 'unknown' });
          expect((await row(1)).errorDetail).toMatch(/Marketing Messages API, whose statuses carry no callback data/);
          expect((await feed()).jobs).toEqual([]);
        },
      );

      it('no status for it and none for later sends either: it may have been delivered, so it becomes unknown, not resent', async () => {
        await campaign(2);
        await answer(job(2), sentAs('w2'));
        await ledger.applyStatuses([statusOf('w2', 'sent')]);
        clock.advance(5);
        await answer(job(1), lost('IN_DOUBT'));
        clock.advance(CONFIRM_MS + 50);
        expect(await ledger.confirmInDoubt(NUMBER, 100)).toEqual({ ...nothing, unknown: 1, completedCampaigns: [ID] });
        expect(await row(1)).toMatchObject({ status: 'unknown', errorCode: 'IN_DOUBT' });
        expect((await row(1)).errorDetail).toMatch(/may have been delivered, so it is not resent/);
        expect((await feed()).jobs).toEqual([]);
      });

      it(
        'a row caught mid-send when BullMQ gave up waits too; in a campaign cancelled meanwhile, ' +
          'a row that never reached Meta is cancelled, not resent',
        async () => {
          await campaign(3);
          await ledger.claim(job(1), NUMBER);
          expect(
            (await ledger.settle(job(1), { status: 'abandoned', errorCode: 'WORKER_GAVE_UP', errorDetail: 'stalled' }, NUMBER)).status,
          ).toBe('confirming');
          clock.advance(5);
          await answer(job(2), sentAs('w2'));
          await ledger.applyStatuses([statusOf('w2', 'delivered')]);
          expect(await ledger.cancel(ID)).toMatchObject({ outcome: 'cancelled' });
          clock.advance(CONFIRM_MS + 50);
          expect((await ledger.claim(job(3), NUMBER)).outcome).toBe('settled');
          expect(await ledger.confirmInDoubt(NUMBER, 100)).toEqual({ ...nothing, ended: 1, completedCampaigns: [ID] });
          expect(await statuses()).toEqual(['cancelled', 'sent', 'cancelled']);
        },
      );

      it('decides at most `limit` rows per call, earliest deadline first', async () => {
        await campaign(4);
        for (const r of [3, 1, 2]) {
          await answer(job(r), lost());
          clock.advance(2);
        }
        clock.advance(CONFIRM_MS + 50);
        expect(await ledger.confirmInDoubt(NUMBER, 2)).toMatchObject({ unknown: 2 });
        expect(await statuses()).toEqual(['unknown', 'confirming', 'unknown', 'queued']);
        expect(await ledger.confirmInDoubt(NUMBER, 2)).toMatchObject({ unknown: 1 });
      });
    });

    describe('status webhooks', () => {
      const status = (wamid: string, kind: StatusUpdate['kind'], at: number, more: Partial<StatusUpdate> = {}): StatusUpdate => ({
        phoneNumberId: NUMBER,
        wamid,
        kind,
        at,
        ...more,
      });

      it(
        'delivered and read by first-seen time, counted once per row; a read alone counts as ' +
          'delivered; duplicates and late ones change nothing',
        async () => {
          await campaign(3);
          await answer(job(1), sentAs('w1'));
          await answer(job(2), sentAs('w2'));
          await answer(job(3), sentAs('w3'));
          const outcomes = await ledger.applyStatuses([
            status('w1', 'delivered', 2000),
            status('w1', 'read', 5000),
            status('w2', 'read', 4000),
            status('w1', 'delivered', 2000),
            status('w2', 'delivered', 3000),
            status('w1', 'sent', 1000),
          ]);
          expect(outcomes.map((o) => o.outcome)).toEqual(['applied', 'applied', 'applied', 'same', 'applied', 'same']);
          expect(await counts()).toMatchObject({ sent: 3, delivered: 2, read: 2 });
          expect(await row(1)).toMatchObject({ status: 'sent', deliveredAt: 2000, readAt: 5000 });
          // The read came first; the earlier delivered then moves deliveredAt back: order does not matter.
          expect(await row(2)).toMatchObject({ status: 'sent', deliveredAt: 3000, readAt: 4000 });
          expect((await row(3)).deliveredAt).toBeUndefined();
        },
      );

      it("failed makes the row failed with Meta's code; 131050 also records the opt-out for the number", async () => {
        await campaign(2);
        await answer(job(1), sentAs('w1'));
        await answer(job(2), sentAs('w2'));
        await ledger.applyStatuses([
          status('w1', 'failed', 2000, { code: '131026', detail: 'Message undeliverable' }),
          status('w2', 'failed', 2000, { code: '131050', detail: 'stopped marketing' }),
          status('w1', 'delivered', 2500),
        ]);
        expect(await row(1)).toMatchObject({
          status: 'failed',
          errorCode: '131026',
          errorDetail: 'Message undeliverable',
          deliveredAt: 2500,
        });
        expect(await counts()).toMatchObject({ sent: 0, failed: 2, delivered: 1 });
        expect([...(await ledger.optOuts(NUMBER)).keys()]).toEqual([phoneNumber(2)]);
      });

      it('a failed status makes the duplicate guard forget the message: the same message can be sent again', async () => {
        const guarded = open({ duplicateWindowMs: HOUR });
        const l = guarded.ledger;
        await campaign(1, { on: l });
        await answer(job(1), sentAs('w1'), l);
        await l.applyStatuses([status('w1', 'failed', 2000, { code: '131026', detail: 'undeliverable' })]);
        await campaign(1, { id: 'again', on: l });
        expect((await l.status('again'))?.counts).toMatchObject({ queued: 1, skipped: 0 });
        expect((await l.claim(jobOf('again', 1), NUMBER)).outcome).toBe('claimed');
      });

      it(
        'a status settles a row whose answer was lost (unknown) or not yet recorded (sending), found ' +
          'by its callback data; the late answer then changes nothing',
        async () => {
          await campaign(2);
          await ledger.claim(job(1), NUMBER);
          await ledger.settle(job(1), { status: 'unknown', errorCode: 'TIMEOUT', errorDetail: 'no answer' }, NUMBER);
          await ledger.claim(job(2), NUMBER);
          const outcomes = await ledger.applyStatuses([
            status('w1', 'delivered', 2000, { callbackData: `${ID}/1` }),
            status('w2', 'sent', 1000, { callbackData: `${ID}/2` }),
          ]);
          expect(outcomes).toEqual([
            { outcome: 'applied', completedCampaign: false },
            { outcome: 'applied', completedCampaign: true },
          ]);
          expect(await row(1)).toMatchObject({ status: 'sent', wamid: 'w1', deliveredAt: 2000 });
          expect(await row(1)).not.toHaveProperty('errorCode');
          expect((await ledger.settle(job(2), sentAs('w2'), NUMBER)).status).toBe('sent');
          expect(await counts()).toMatchObject({ sent: 2, unknown: 0, sending: 0, delivered: 1 });
          // Found by its message ID now, with no callback data.
          expect((await ledger.applyStatuses([status('w2', 'read', 3000)]))[0]?.outcome).toBe('applied');
        },
      );

      it(
        'a user message opens their 24-hour window; a button reply is kept on the row it answers ' +
          '(the earliest); a keyword records the opt-out',
        async () => {
          await campaign(2);
          await answer(job(1), sentAs('w1'));
          const t = clock.now();
          const waId = phoneNumber(1).slice(1);
          expect(await ledger.serviceWindowsOpen(NUMBER, [waId])).toEqual([false]);
          const answered = await ledger.applyInbound([
            { phoneNumberId: NUMBER, waId, wamid: 'in-2', at: t + 2000, replyTo: 'w1', reply: 'LATER', optOut: false },
            { phoneNumberId: NUMBER, waId, wamid: 'in-1', at: t + 1000, replyTo: 'w1', reply: 'YES', optOut: false },
            { phoneNumberId: NUMBER, waId: phoneNumber(2).slice(1), wamid: 'in-3', at: t, replyTo: 'w-unknown', reply: 'X', optOut: true },
          ]);
          expect(answered).toEqual([{ answeredRow: true }, { answeredRow: true }, { answeredRow: false }]);
          expect((await row(1)).reply).toBe('YES');
          expect(await ledger.serviceWindowsOpen(NUMBER, [waId, `+${waId}`])).toEqual([true, true]);
          expect((await ledger.optOuts(NUMBER)).get(phoneNumber(2))).toMatchObject({ via: 'keyword', at: t });
          // A window closes 24 h after the user's last message, on the ledger's clock (user 2 wrote at t, user 1 last at t + 2000).
          const both = [waId, phoneNumber(2).slice(1)];
          clock.set(t + 24 * HOUR - 1);
          expect(await ledger.serviceWindowsOpen(NUMBER, both)).toEqual([true, true]);
          clock.set(t + 24 * HOUR);
          expect(await ledger.serviceWindowsOpen(NUMBER, both)).toEqual([true, false]);
          clock.set(t + 2000 + 24 * HOUR);
          expect(await ledger.serviceWindowsOpen(NUMBER, both)).toEqual([false, false]);
          expect(await ledger.serviceWindowsOpen(NUMBER, [waId])).toEqual([false]);
        },
      );

      it('the operator adds and removes opt-outs; adding keeps an existing entry', async () => {
        expect(await ledger.addOptOut(NUMBER, phoneNumber(7))).toBe(true);
        expect((await ledger.optOuts(NUMBER)).get(phoneNumber(7))).toMatchObject({ via: 'operator', campaignId: '', row: 0 });
        await ledger.recordOptOut(NUMBER, phoneNumber(8), { campaignId: 'c', row: 3 });
        expect(await ledger.addOptOut(NUMBER, phoneNumber(8))).toBe(false);
        expect((await ledger.optOuts(NUMBER)).get(phoneNumber(8))).toMatchObject({ campaignId: 'c', row: 3 });
        expect(await ledger.removeOptOut(NUMBER, phoneNumber(7))).toBe(true);
        expect(await ledger.removeOptOut(NUMBER, phoneNumber(7))).toBe(false);
        expect([...(await ledger.optOuts(NUMBER)).keys()]).toEqual([phoneNumber(8)]);
      });

      it(
        'user_preferences: stop opts the user out, resume opts them in again; the newest ' +
          'event wins, so a late older stop changes nothing',
        async () => {
          const waId = phoneNumber(5).slice(1);
          const pref = (value: 'stop' | 'resume', at: number) => ({ phoneNumberId: NUMBER, waId, value, at });
          await ledger.applyPreferences([pref('stop', 1000)]);
          expect((await ledger.optOuts(NUMBER)).get(phoneNumber(5))).toMatchObject({ via: 'user_preferences', at: 1000 });
          await ledger.applyPreferences([pref('resume', 3000), pref('stop', 2000), pref('stop', 1000)]);
          expect((await ledger.optOuts(NUMBER)).has(phoneNumber(5))).toBe(false);
          await ledger.applyPreferences([pref('stop', 4000)]);
          expect((await ledger.optOuts(NUMBER)).has(phoneNumber(5))).toBe(true);
        },
      );

      it('statuses for messages no row has are unmatched; a row no send answered is left alone', async () => {
        await campaign(1, { extra: [rejected(2)] });
        expect(
          await ledger.applyStatuses([
            status('w-other', 'delivered', 1000),
            status('w-x', 'read', 1000, { callbackData: `${ID}/2` }),
            status('w-y', 'sent', 1, { callbackData: 'nope' }),
          ]),
        ).toEqual([
          { outcome: 'unmatched', completedCampaign: false },
          { outcome: 'other', completedCampaign: false },
          { outcome: 'unmatched', completedCampaign: false },
        ]);
        expect((await row(2)).status).toBe('rejected');
      });

      it("a row's pricing is the first its statuses bring; a billable one counts once by market and category", async () => {
        const { ledger: priced } = open();
        await campaign(2, { on: priced });
        await answer(job(1), sentAs('w1'), priced);
        await answer(job(2), sentAs('w2'), priced);
        const india = { category: 'marketing', billable: true, market: 'India' };
        const outcomes = await priced.applyStatuses([
          status('w1', 'sent', 1000, { pricing: india }),
          status('w1', 'delivered', 2000, { pricing: india }),
          status('w1', 'delivered', 2000, { pricing: india }),
          status('w2', 'delivered', 2000, { pricing: { category: 'service', billable: false, market: 'India' } }),
        ]);
        expect(outcomes.map((o) => [o.outcome, o.billed === true])).toEqual([
          ['applied', true],
          ['applied', false],
          ['same', false],
          ['applied', false],
        ]);
        expect((await rowsOf(ID, priced)).map((r) => r.pricing)).toEqual([
          { category: 'marketing', billable: true },
          { category: 'service', billable: false },
        ]);
        expect((await priced.recordedCosts(ID)).billed).toEqual([{ market: 'India', category: 'marketing', messages: 1 }]);
      });
    });

    describe('what the keys hold (the backlog, the window, the message-ID index)', () => {
      it('keeps the backlog as "row" / "row:k" entries: parked rows at the front, retried ones at the end', async () => {
        await campaign(4, { fed: 2 });
        expect(await peek.backlog(ID)).toEqual(['3', '4']);
        expect(await peek.windowJobIds()).toEqual([`${ID}-1`, `${ID}-2`]);
        await answer(job(1), failedWith('131000'));
        await ledger.pause(ID, 'x');
        expect(await ledger.claim(job(2), NUMBER)).toEqual({ outcome: 'parked' });
        await ledger.markForRetry(ID, 1, 4, { codes: [], failed: true, unknown: false });
        expect(await peek.backlog(ID)).toEqual(['2:1', '3', '4', '1:1']);
        expect(await peek.windowJobIds()).toEqual([]);
      });

      it('indexes sent message IDs by campaign and row', async () => {
        await campaign(1);
        await answer(job(1), sentAs('wamid.1'));
        expect(await peek.wamidOwner('wamid.1')).toBe(`${ID}/1`);
      });

      it('gives the age of a duplicate as C’s printf does: an exact tie rounds to even', async () => {
        const { ledger: guarded, clock: guardClock } = open({ duplicateWindowMs: 24 * HOUR });
        await campaign(1, { id: 'a', on: guarded });
        await guarded.claim(jobOf('a', 1), NUMBER);
        // 0.25 h: printf('%.1f') gives 0.2 where toFixed gives 0.3.
        guardClock.advance(15 * MINUTE);
        await guarded.createCampaign(ledgerTestDefinition('b'));
        expect((await guarded.recordIngested('b', NUMBER, [queuedRow(1)])).alreadySent[0]?.detail).toContain(' 0.2 h ago');
        // 0.75 h: 0.8 either way.
        guardClock.advance(30 * MINUTE);
        await guarded.createCampaign(ledgerTestDefinition('c'));
        expect((await guarded.recordIngested('c', NUMBER, [queuedRow(1)])).alreadySent[0]?.detail).toContain(' 0.8 h ago');
      });
    });
  });
}
