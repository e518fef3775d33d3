import { beforeEach, describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import type { IngestedRow } from '../../src/campaigns/ledger.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { SendProcessor, type AttemptContext, type MessageSender } from '../../src/campaigns/send/send-processor.js';
import type { SendPacer } from '../../src/campaigns/feed/send-pacer.js';
import type { SendResult } from '../../src/cloud-api/cloud-api-client.js';
import { CloudApiBadResponseError, CloudApiError, CloudApiTransportError } from '../../src/cloud-api/cloud-api-errors.js';
import type { OutboundMessage, TemplateMessage } from '../../src/cloud-api/outbound-message.js';
import type { RequestWrite } from '../../src/cloud-api/post-exchange.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { LedgerOptions, RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import type { SendTrouble } from '../../src/campaigns/send/send-trouble.js';
import { phoneNumber } from '../support/csv-files.js';
import type { LedgerPeek } from '../support/ledger-peek.js';
import type { TestClock } from '../support/test-clock.js';
import { ledgersPerTest } from '../support/test-ledger.js';
import { UNIT_NUMBER, orderUpdateDefinition } from '../support/unit-campaigns.js';

/**
 * One recipient's send (src/campaigns/send/send-processor.ts) on the ledger (a real Redis,
 * its clock stopped) and a fake MessageSender: what each answer of the Cloud API does to the row, the campaign and
 * the job, per the error policy (src/campaigns/send/error-policy.ts).
 */

const ID = 'c1';
const FIRST: AttemptContext = { isLastAttempt: false, pairDelays: 0 };
const LAST: AttemptContext = { isLastAttempt: true, pairDelays: 0 };

type Answer = SendResult | Error | Promise<SendResult>;

/** Answers each send with the next scripted answer (default: accepted), and records what was sent. */
class FakeSender implements MessageSender {
  readonly sent: { phoneNumberId: string; message: OutboundMessage }[] = [];
  readonly #answers: Answer[] = [];

  answerNext(...answers: Answer[]): void {
    this.#answers.push(...answers);
  }

  async send(phoneNumberId: string, message: OutboundMessage, onWritten?: (write: RequestWrite) => void): Promise<SendResult> {
    onWritten?.({ endedAt: performance.now() });
    this.sent.push({ phoneNumberId, message });
    const answer = this.#answers.shift() ?? accepted(`wamid.${this.sent.length}`);
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

function accepted(wamid: string): SendResult {
  return { wamid, waId: '4915100000000', input: '+4915100000000', messageStatus: 'accepted' };
}

const meta = (metaCode: number, httpStatus = 400, details = `meta ${metaCode}`) => new CloudApiError({ httpStatus, metaCode, details });
const job = (row: number, requeue?: number): SendJob =>
  requeue === undefined ? { campaignId: ID, row } : { campaignId: ID, row, requeue };

describe('SendProcessor (ledger on a real Redis, fake sender)', () => {
  const openLedger = ledgersPerTest('send-processor');
  let ledger: RedisLedger;
  let clock: TestClock;
  let peek: LedgerPeek;
  let sender: FakeSender;
  let processor: SendProcessor;
  let completed: string[];
  let paused: string[];
  let troubles: SendTrouble[];

  /** A campaign of `rows` rows (values NameN, A-N), ingest finished, every row fed; and a processor on it. */
  async function setUp(
    rows: number,
    options: {
      ledger?: Omit<LedgerOptions, 'clock'>;
      pacer?: SendPacer;
      extra?: IngestedRow[];
      confirmInDoubt?: boolean;
      claimLifetimeMs?: number;
    } = {},
  ): Promise<void> {
    ({ ledger, clock, peek } = openLedger(options.ledger));
    sender = new FakeSender();
    completed = [];
    paused = [];
    troubles = [];
    await ledger.createCampaign(orderUpdateDefinition(ID));
    const ingested: IngestedRow[] = Array.from({ length: rows }, (_, i) => ({
      row: i + 1,
      phone: phoneNumber(i + 1),
      status: 'queued',
      message: { values: [`Name${i + 1}`, `A-${i + 1}`], headerLink: undefined, fingerprint: `fp-${i + 1}` },
    }));
    await ledger.recordIngested(ID, UNIT_NUMBER, [...ingested, ...(options.extra ?? [])]);
    await ledger.finishIngest(ID);
    await ledger.feed(UNIT_NUMBER, { windowSize: 1000, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
    processor = new SendProcessor({
      ledger,
      sender,
      logger: silentLogger(),
      pacer: options.pacer,
      onCampaignCompleted: (id) => completed.push(id),
      onCampaignPaused: (id) => paused.push(id),
      confirmInDoubt: options.confirmInDoubt === true,
      trouble: { record: (trouble) => troubles.push(trouble) },
      ...(options.claimLifetimeMs === undefined ? {} : { claimLifetimeMs: options.claimLifetimeMs }),
    });
  }

  async function row(n: number): Promise<RowRecord | undefined> {
    for await (const page of ledger.rows(ID)) {
      const found = page.find((r) => r.row === n);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  beforeEach(async () => {
    await setUp(2);
  });

  describe('accepted', () => {
    it('sends what the ledger row holds (not what the job carries) from the campaign’s number, and records the message ID', async () => {
      expect(await processor.process({ ...job(1), to: '+10000000000', values: ['Mallory', 'X'] }, FIRST)).toEqual({
        kind: 'done',
        status: 'sent',
      });
      expect(sender.sent).toHaveLength(1);
      const { phoneNumberId, message } = sender.sent[0] ?? {};
      expect(phoneNumberId).toBe(UNIT_NUMBER);
      expect(message).toMatchObject({
        kind: 'template',
        to: phoneNumber(1),
        name: 'order_update',
        language: 'en_US',
        callbackData: `${ID}/1`,
      });
      expect((message as TemplateMessage).body).toEqual([{ text: 'Name1' }, { text: 'A-1' }]);
      expect(await row(1)).toEqual({ row: 1, phone: phoneNumber(1), status: 'sent', attempts: 1, wamid: 'wamid.1' });
      expect(await peek.wamidOwner('wamid.1')).toBe(`${ID}/1`);
      expect(completed).toEqual([]);
    });

    it('the campaign’s last answer reports it completed, once', async () => {
      await processor.process(job(1), FIRST);
      await processor.process(job(2), FIRST);
      expect(completed).toEqual([ID]);
      expect((await ledger.status(ID))?.state).toBe('completed');
      // A duplicate job of an answered row: its answer stands, nothing is sent, nothing reported again.
      expect(await processor.process(job(2), FIRST)).toEqual({ kind: 'done', status: 'sent' });
      expect(sender.sent).toHaveLength(2);
      expect(completed).toEqual([ID]);
    });

    it('a job that no longer owns its row does nothing', async () => {
      expect(await processor.process(job(1, 3), FIRST)).toEqual({ kind: 'done', status: 'stale' });
      expect(sender.sent).toEqual([]);
      expect((await row(1))?.status).toBe('queued');
    });

    it('spaces sends with the pacer: a slot before the claim, admission right before the request, told when it leaves', async () => {
      const calls: string[] = [];
      const pacer: SendPacer = {
        reserveSlot: () => Promise.resolve(void calls.push('slot')),
        admit: () => {
          calls.push('admit');
          return Promise.resolve({ left: () => void calls.push('left') });
        },
      };
      await setUp(2, { pacer });
      const send = sender.send.bind(sender);
      sender.send = (number: string, message: OutboundMessage, onWritten?: (write: RequestWrite) => void) => {
        calls.push('send');
        return send(number, message, onWritten);
      };
      await processor.process(job(1), FIRST);
      // The admission hears when its request leaves: a late one corrects its stamp.
      expect(calls).toEqual(['slot', 'admit', 'send', 'left']);
    });

    describe('a request that cannot leave within the claim’s lifetime', () => {
      // An admission held up past the lifetime, as a worker whose Redis is away in a failover is.
      const slowPacer: SendPacer = {
        reserveSlot: () => Promise.resolve(0),
        admit: () => new Promise((resolve) => setTimeout(() => resolve({ left: () => undefined }), 150)),
      };
      const late = { pacer: slowPacer, ledger: { confirmWindowMs: 600_000 }, confirmInDoubt: true, claimLifetimeMs: 50 };

      it('leaves while this worker still holds its job (the lock, checked then)', async () => {
        await setUp(1, late);
        let asked = 0;
        const held = { ...FIRST, jobStillHeld: () => Promise.resolve(++asked > 0) };
        expect(await processor.process(job(1), held)).toEqual({ kind: 'done', status: 'sent' });
        expect(asked).toBe(1);
        expect(sender.sent).toHaveLength(1);
      });

      it('is not sent, and nothing is written, once the job’s lock is lost: run again, the row is in doubt', async () => {
        await setUp(1, late);
        const lost = { ...FIRST, jobStillHeld: () => Promise.resolve(false) };
        expect((await processor.process(job(1), lost)).kind).toBe('retry');
        expect(sender.sent).toEqual([]);
        expect(await row(1)).toMatchObject({ status: 'sending', attempts: 1 });
        // The job's next run (here or on another worker) finds the row claimed: in doubt, not sent.
        expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'confirming' });
        expect(sender.sent).toEqual([]);
      });
    });
  });

  describe('Meta errors, per the error policy', () => {
    it('retry (131000, 5xx): the row waits for the next attempt with the code; on the last attempt it fails', async () => {
      sender.answerNext(meta(131000, 500, 'Something went wrong'));
      const outcome = await processor.process(job(1), FIRST);
      expect(outcome.kind).toBe('retry');
      expect(await row(1)).toMatchObject({ status: 'queued', attempts: 1, errorCode: '131000', errorDetail: 'Something went wrong' });
      // The job stays in the window: BullMQ runs it again.
      expect(await peek.windowJobIds(UNIT_NUMBER)).toContain(`${ID}-1`);

      sender.answerNext(meta(131000, 500, 'Something went wrong'));
      expect(await processor.process(job(1), LAST)).toEqual({ kind: 'done', status: 'failed' });
      expect(await row(1)).toMatchObject({ status: 'failed', attempts: 2, errorCode: '131000' });
      expect(await peek.windowJobIds(UNIT_NUMBER)).not.toContain(`${ID}-1`);
    });

    it('no answer on the last attempt: unknown when the request may have left, failed when it never did', async () => {
      sender.answerNext(new CloudApiTransportError('timeout', undefined), new CloudApiTransportError('connect', undefined));
      expect(await processor.process(job(1), LAST)).toEqual({ kind: 'done', status: 'unknown' });
      expect(await row(1)).toMatchObject({ status: 'unknown', errorCode: 'TRANSPORT_TIMEOUT' });
      expect(await processor.process(job(2), LAST)).toEqual({ kind: 'done', status: 'failed' });
      expect(await row(2)).toMatchObject({ status: 'failed', errorCode: 'TRANSPORT_CONNECT' });
    });

    it(
      'with the in-doubt rule on, no answer is never retried blindly: on any attempt the row waits ' +
        '`confirming` for a status; a refused connection is still retried',
      async () => {
        await setUp(3, { ledger: { confirmWindowMs: 600_000 }, confirmInDoubt: true });
        sender.answerNext(new CloudApiTransportError('timeout', undefined), new CloudApiTransportError('connect', undefined));
        expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'confirming' });
        expect(await row(1)).toMatchObject({ status: 'confirming', errorCode: 'TRANSPORT_TIMEOUT' });
        expect((await row(1))?.errorDetail).toMatch(/waiting for a status webhook/);
        expect((await processor.process(job(2), FIRST)).kind).toBe('retry');
        expect(await row(2)).toMatchObject({ status: 'queued', errorCode: 'TRANSPORT_CONNECT' });
        // A row its dead worker left `sending` waits the same way.
        await ledger.claim(job(3), UNIT_NUMBER);
        expect(await processor.process(job(3), FIRST)).toEqual({ kind: 'done', status: 'confirming' });
        expect(await row(3)).toMatchObject({ status: 'confirming', errorCode: 'IN_DOUBT' });
        // The two requests that got no answer; none for the in-doubt row.
        expect(sender.sent.map((s) => s.message.to)).toEqual([phoneNumber(1), phoneNumber(2)]);
      },
    );

    it('throughput (130429, 80007): the number backs off, the row waits without using an attempt', async () => {
      sender.answerNext(meta(130429, 400), meta(80007, 400));
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'throttle-number', ms: 1000 });
      expect(await processor.process(job(2), FIRST)).toEqual({ kind: 'throttle-number', ms: 60_000 });
      expect(await row(1)).toMatchObject({ status: 'queued', errorCode: '130429' });
      expect((await ledger.status(ID))?.counts).toMatchObject({ queued: 2, sending: 0 });
    });

    it('pair rate limit (131056): only this recipient waits, twice as long each time, at most 10 minutes', async () => {
      sender.answerNext(meta(131056), meta(131056), meta(131056));
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'delay-recipient', ms: 6000 });
      expect(await processor.process(job(1), { isLastAttempt: false, pairDelays: 3 })).toEqual({ kind: 'delay-recipient', ms: 48_000 });
      expect(await processor.process(job(1), { isLastAttempt: false, pairDelays: 10 })).toEqual({ kind: 'delay-recipient', ms: 600_000 });
      expect(await row(1)).toMatchObject({ status: 'queued', errorCode: '131056' });
    });

    it('a wrong row (131026) fails with Meta’s code; an opt-out (131050) also remembers the recipient for this number', async () => {
      sender.answerNext(meta(131026, 400, 'Message undeliverable'), meta(131050, 400, 'User stopped marketing messages'));
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'failed' });
      expect(await row(1)).toMatchObject({ status: 'failed', errorCode: '131026', errorDetail: 'Message undeliverable' });
      expect(await ledger.optOuts(UNIT_NUMBER)).toEqual(new Map());
      expect(await processor.process(job(2), FIRST)).toEqual({ kind: 'done', status: 'failed' });
      expect([...(await ledger.optOuts(UNIT_NUMBER)).entries()]).toEqual([[phoneNumber(2), { campaignId: ID, row: 2, at: clock.now() }]]);
      expect(completed).toEqual([ID]);
    });

    it.each([
      [132015, 'PAUSED', 'Template is Paused'],
      [132016, 'DISABLED', 'Template is disabled'],
    ])(
      '%i pauses the campaign as its template’s status would (TEMPLATE_PAUSED: %s …); the reinstatement resumes it',
      async (code, event, detail) => {
        await setUp(2);
        sender.answerNext(meta(code, 400, detail));
        expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'parked' });
        expect(paused).toEqual([ID]);
        expect(await ledger.status(ID)).toMatchObject({
          state: 'paused',
          pausedReason: `TEMPLATE_PAUSED: ${event} order_update (en_US): ${code} ${detail}`,
        });
        expect(await row(1)).toMatchObject({ status: 'queued', requeue: 1, errorCode: String(code) });

        const reinstated = await ledger.applyTemplateStatus({ event: 'REINSTATED', name: 'order_update', language: 'en_US', detail: '' });
        expect(reinstated).toEqual([{ campaignId: ID, outcome: 'resumed' }]);
        expect((await ledger.status(ID))?.state).toBe('running');
      },
    );

    it(
      'a halting code (190) pauses the campaign with the code as its reason; the row waits for ' +
        'resume under a new job; the next job parks without sending',
      async () => {
        await setUp(3);
        sender.answerNext(meta(190, 401, 'Error validating access token'));
        expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'parked' });
        expect(paused).toEqual([ID]);
        expect(await ledger.status(ID)).toMatchObject({ state: 'paused', pausedReason: '190: Error validating access token' });
        expect(await row(1)).toMatchObject({ status: 'queued', requeue: 1, errorCode: '190' });
        expect(await peek.backlog(ID)).toEqual(['1:1']);

        expect(await processor.process(job(2), FIRST)).toEqual({ kind: 'done', status: 'parked' });
        expect(sender.sent).toHaveLength(1);
        expect(await peek.backlog(ID)).toEqual(['2:1', '1:1']);

        // Resumed: the parked rows are fed again under their new job numbers, and sent.
        await ledger.resume(ID);
        const { jobs } = await ledger.feed(UNIT_NUMBER, { windowSize: 1000, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
        expect(jobs).toEqual([job(2, 1), job(1, 1)]);
        const fresh = new SendProcessor({ ledger, sender, logger: silentLogger(), onCampaignCompleted: (id) => completed.push(id) });
        for (const next of [...jobs, job(3)]) expect(await fresh.process(next, FIRST)).toEqual({ kind: 'done', status: 'sent' });
        expect(completed).toEqual([ID]);
      },
    );

    it(
      'each trouble is reported once, with its campaign, number and code: throttles with ' +
        'their pause; a halt is not (the pause is logged)',
      async () => {
        await setUp(8);
        sender.answerNext(
          meta(130429),
          meta(131057, 500),
          meta(131056),
          meta(131000, 500),
          meta(131000, 500),
          meta(131009),
          new CloudApiTransportError('timeout', undefined),
          meta(190, 401),
        );
        await processor.process(job(1), FIRST);
        await processor.process(job(2), FIRST);
        await processor.process(job(3), FIRST);
        await processor.process(job(4), FIRST);
        await processor.process(job(4), LAST);
        await processor.process(job(5), FIRST);
        await processor.process(job(6), LAST);
        await processor.process(job(7), FIRST);
        const about = { campaignId: ID, phoneNumberId: UNIT_NUMBER };
        expect(troubles).toEqual([
          { kind: 'throttled', ...about, code: '130429', pauseMs: 1000 },
          { kind: 'throttled', ...about, code: '131057', pauseMs: 60_000 },
          { kind: 'delayed', ...about, code: '131056' },
          { kind: 'retried', ...about, code: '131000' },
          { kind: 'failed', ...about, code: '131000' },
          { kind: 'failed', ...about, code: '131009' },
          { kind: 'unknown', ...about, code: 'TRANSPORT_TIMEOUT' },
        ]);
        expect(paused).toEqual([ID]);
      },
    );

    it('a failure the ledger did not take (the row already had its answer) is not reported', async () => {
      let refuse!: (error: Error) => void;
      sender.answerNext(new Promise<SendResult>((_, reject) => (refuse = reject)));
      const running = processor.process(job(1), FIRST);
      while (sender.sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
      // Shutdown recorded the row in doubt before Meta's late refusal came back.
      await processor.abandonInFlight();
      refuse(meta(131009));
      expect(await running).toEqual({ kind: 'done', status: 'unknown' });
      expect(troubles).toEqual([]);
    });

    it('an unknown 4xx without a Meta code fails the row; 401/403 halt the campaign', async () => {
      sender.answerNext(new CloudApiError({ httpStatus: 404 }), new CloudApiError({ httpStatus: 403 }));
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'failed' });
      expect((await row(1))?.errorCode).toBe('HTTP_404');
      expect(await processor.process(job(2), FIRST)).toEqual({ kind: 'done', status: 'parked' });
      expect((await ledger.status(ID))?.pausedReason).toMatch(/^HTTP_403: /);
    });

    it('a 200 with a body that is not a send answer: unknown (it may have been sent), never resent', async () => {
      sender.answerNext(new CloudApiBadResponseError(200, 'empty arrays'));
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'unknown' });
      expect(await row(1)).toMatchObject({ status: 'unknown', errorCode: 'CLOUD_API_BAD_RESPONSE' });
    });

    it('an error that is not the Cloud API’s is thrown: the row stays sending, in doubt for its next run', async () => {
      sender.answerNext(new TypeError('bug'));
      await expect(processor.process(job(1), FIRST)).rejects.toThrow('bug');
      expect((await row(1))?.status).toBe('sending');
    });

    it('the error-spike brake: the failure that trips it pauses the campaign and is reported', async () => {
      await setUp(6, { ledger: { autoPause: { window: 4, failureShare: 0.5 } } });
      sender.answerNext(meta(131026), accepted('w2'), meta(131026), meta(131026));
      for (const n of [1, 2, 3]) await processor.process(job(n), FIRST);
      expect(paused).toEqual([]);
      expect(await processor.process(job(4), FIRST)).toEqual({ kind: 'done', status: 'failed' });
      expect(paused).toEqual([ID]);
      expect((await ledger.status(ID))?.pausedReason).toMatch(/^ERROR_SPIKE: 3 of the last 4 sends failed permanently/);
      expect(await processor.process(job(5), FIRST)).toEqual({ kind: 'done', status: 'parked' });
      expect(sender.sent).toHaveLength(4);
    });

    it('the brake tripping on the last answer: the campaign is complete, not reported paused', async () => {
      await setUp(4, { ledger: { autoPause: { window: 4, failureShare: 0.5 } } });
      sender.answerNext(meta(131026), accepted('w2'), meta(131026), meta(131026));
      for (const n of [1, 2, 3, 4]) await processor.process(job(n), FIRST);
      expect(completed).toEqual([ID]);
      expect(paused).toEqual([]);
      expect((await ledger.status(ID))?.state).toBe('completed');
    });
  });

  describe('what the claim decides', () => {
    it('a row left sending by a worker that died is in doubt: unknown IN_DOUBT, never resent', async () => {
      expect((await ledger.claim(job(1), UNIT_NUMBER)).outcome).toBe('claimed');
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'unknown' });
      expect(await row(1)).toMatchObject({
        status: 'unknown',
        errorCode: 'IN_DOUBT',
        errorDetail: 'attempt 1 may have been sent before its worker stopped; not resent',
      });
      expect(sender.sent).toEqual([]);
    });

    it('a cancelled campaign: each fed row is cancelled at its claim, and the last completes the campaign', async () => {
      await ledger.cancel(ID);
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'cancelled' });
      expect(completed).toEqual([]);
      expect(await processor.process(job(2), FIRST)).toEqual({ kind: 'done', status: 'cancelled' });
      expect(completed).toEqual([ID]);
      expect(sender.sent).toEqual([]);
    });

    it('a paused campaign: the row parks, without a pacer slot', async () => {
      let slots = 0;
      await setUp(1, {
        pacer: { reserveSlot: () => Promise.resolve(void slots++), admit: () => Promise.resolve({ left: () => undefined }) },
      });
      await ledger.pause(ID, 'operator');
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'parked' });
      expect(slots).toBe(0);
      expect(sender.sent).toEqual([]);
    });

    it('a row whose values do not fit the template fails JOB_PAYLOAD_INVALID without a request', async () => {
      await setUp(0, {
        extra: [
          { row: 1, phone: phoneNumber(1), status: 'queued', message: { values: ['only one'], headerLink: undefined, fingerprint: 'fp' } },
        ],
      });
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'done', status: 'failed' });
      expect(await row(1)).toMatchObject({
        status: 'failed',
        errorCode: 'JOB_PAYLOAD_INVALID',
        errorDetail: 'row has 1 values, template order_update takes 2',
      });
      expect(sender.sent).toEqual([]);
    });
  });

  describe('shutdown', () => {
    it('after stop() a job that has not claimed its row is released untouched', async () => {
      processor.stop();
      expect(await processor.process(job(1), FIRST)).toEqual({ kind: 'release' });
      expect(await row(1)).toMatchObject({ status: 'queued', attempts: 0 });
    });

    it('requests still out when shutdown cannot wait become unknown; their late answer does not change that', async () => {
      let answer!: (result: SendResult) => void;
      sender.answerNext(new Promise<SendResult>((resolve) => (answer = resolve)));
      const running = processor.process(job(1), FIRST);
      while (sender.sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
      expect(await processor.abandonInFlight()).toBe(1);
      expect(await row(1)).toMatchObject({ status: 'unknown', errorCode: 'SHUTDOWN_IN_FLIGHT' });
      answer(accepted('wamid.late'));
      expect(await running).toEqual({ kind: 'done', status: 'unknown' });
      expect((await row(1))?.wamid).toBeUndefined();
      expect(await processor.abandonInFlight()).toBe(0);
    });
  });
});
