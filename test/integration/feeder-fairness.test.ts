import { describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import type { AcceptedMessage } from '../../src/sandbox/accepted-log.js';
import { phoneNumber, writeCampaignCsv } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, type Pipeline, pipelinePerTest } from '../support/pipeline.js';
import { within as withinOr } from '../support/waiting.js';

/**
 * Campaigns sharing a phone number, through the whole pipeline (real BullMQ worker and queue,
 * real sandbox, ledger on a real Redis under a fresh prefix): the feeder shares the number's
 * window round-robin between campaigns of one priority, so a short campaign sent during a long
 * one finishes in its own time; a high-priority one goes before a normal one's backlog; and
 * BullMQ never holds more than the window of the number's jobs.
 *
 * The orderings follow from the feed, not from timing: with a window of 100 at 400 msg/s the
 * big campaign needs about 50 s, the small one's 100 rows take a few feeds (a second or two,
 * more on a loaded machine). Without round-robin feeding, the small campaign would wait behind
 * the big one's whole backlog (fed first), and the big one would finish first.
 */
describe('campaigns sharing a number (feeder)', () => {
  const rig = pipelinePerTest();
  const WINDOW = 100;
  const CONCURRENCY = 50;
  const RATE = 400;

  /** Each campaign gets its own recipients (no row repeats another campaign's recipient). */
  const FIRST_RECIPIENT: Record<string, number> = { big: 0, small: 100_000, urgent: 200_000, steady: 300_000 };

  async function produce(p: Pipeline, id: string, rows: number, priority?: CampaignDefinition['priority']): Promise<void> {
    const file = rig.csvPath(`${id}.csv`);
    const first = FIRST_RECIPIENT[id] ?? 0;
    const lines = Array.from({ length: rows }, (_, i) => `${phoneNumber(first + i + 1)},Name${i + 1},A-${i + 1}`);
    await writeCampaignCsv(file, 0, lines);
    const definition: CampaignDefinition = { ...p.definition(id), ...(priority === undefined ? {} : { priority }) };
    expect(await p.produce(file, definition)).toMatchObject({ rows, queued: rows });
  }

  /** The campaign a sent message came from: its biz_opaque_callback_data is `<campaign>/<row>`. */
  const campaignOf = (m: AcceptedMessage): string => {
    const data = (m.body as { biz_opaque_callback_data?: unknown }).biz_opaque_callback_data;
    return typeof data === 'string' ? (data.split('/')[0] ?? '') : '';
  };

  function acceptedFor(p: Pipeline, id: string): number {
    return p.sandbox.accepted().filter((m) => campaignOf(m) === id).length;
  }

  const within = <T>(ms: number, what: string, promise: Promise<T>): Promise<T> => withinOr(ms, promise, () => what);

  /** Resolves once the sandbox has accepted `n` messages of the campaign (an event, with a deadline). */
  function campaignAcceptedAtLeast(p: Pipeline, id: string, n: number, ms: number): Promise<void> {
    if (acceptedFor(p, id) >= n) return Promise.resolve();
    let unsubscribe = (): void => undefined;
    const reached = new Promise<void>((resolve) => {
      unsubscribe = p.sandbox.onAccepted((m) => {
        if (campaignOf(m) === id && acceptedFor(p, id) >= n) resolve();
      });
    });
    return within(ms, `${n} messages of ${id} accepted (got ${acceptedFor(p, id)})`, reached).finally(unsubscribe);
  }

  it('a 100-row campaign finishes while a 20,000-row campaign on the same number is still sending', async () => {
    const p = await rig.start({ label: 'fair', rate: RATE, concurrency: CONCURRENCY, feedWindow: WINDOW });
    await produce(p, 'big', 20_000);
    p.startWorker();
    await campaignAcceptedAtLeast(p, 'big', 200, 90_000);

    const smallDone = p.completed('small');
    await produce(p, 'small', 100);
    await within(60_000, 'the small campaign completed', smallDone);

    const small = await p.ledger.status('small');
    expect(small).toMatchObject({ state: 'completed' });
    expect(small?.counts).toMatchObject({ total: 100, sent: 100, queued: 0, failed: 0 });
    expect(acceptedFor(p, 'small')).toBe(100);
    const big = await p.ledger.status('big');
    // Still sending: most of its rows wait in its backlog, not ahead of the small campaign.
    expect(big?.state, JSON.stringify(big)).toBe('running');
    expect(big?.finishedAt).toBeUndefined();
    expect(big?.counts.queued ?? 0, JSON.stringify(big?.counts)).toBeGreaterThan(15_000);
    expect(await p.redis.llen(`${p.prefix}:{${PHONE_NUMBER_ID}}:campaign:big:pending`)).toBeGreaterThan(15_000);
    expect(p.sandbox.stats().duplicates).toBe(0);
    // The big campaign is left sending: closing the pipeline (after the test) stops it.
  }, 180_000);

  it('--priority high: a campaign sent later is fed before the normal one’s remaining backlog', async () => {
    const p = await rig.start({ label: 'priority', rate: RATE, concurrency: CONCURRENCY, feedWindow: WINDOW });
    await produce(p, 'big', 5000);
    p.startWorker();
    await campaignAcceptedAtLeast(p, 'big', 200, 90_000);

    const urgentDone = p.completed('urgent');
    await produce(p, 'urgent', 300, 'high');
    await within(60_000, 'the urgent campaign completed', urgentDone);

    expect((await p.ledger.status('urgent'))?.counts).toMatchObject({ total: 300, sent: 300, queued: 0 });
    const accepted = p.sandbox.accepted();
    const first = accepted.findIndex((m) => campaignOf(m) === 'urgent');
    const last = accepted.findLastIndex((m) => campaignOf(m) === 'urgent');
    const bigBetween = accepted.slice(first, last + 1).filter((m) => campaignOf(m) === 'big').length;
    // Only the big campaign's jobs already fed (at most the window) or overtaking in flight
    // (about the concurrency) go out meanwhile: none of its backlog is fed while urgent rows
    // wait. Shared round-robin, it would send about as many as the urgent one's 300.
    expect(bigBetween).toBeLessThanOrEqual(WINDOW + CONCURRENCY);
    const big = await p.ledger.status('big');
    expect(big?.state).toBe('running');
    expect(big?.counts.queued ?? 0, JSON.stringify(big?.counts)).toBeGreaterThan(0);
  }, 180_000);

  it('a worker with a feed window of 100 never has more than 100 of the number’s jobs waiting in BullMQ', async () => {
    const ROWS = 1000;
    // 200 msg/s is slower than the feed could go (a window every 250 ms = 400/s): the window is
    // full at nearly every feed, so every feed presses on the bound.
    const p = await rig.start({ label: 'window', rate: 200, concurrency: CONCURRENCY, feedWindow: WINDOW });
    await produce(p, 'steady', ROWS);
    const done = p.completed('steady');
    p.startWorker();

    const samples: { window: number; waiting: number; total: number }[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const window = await p.ledger.windowSize(PHONE_NUMBER_ID);
        // One script in BullMQ: a consistent count of the queue at one moment.
        const counts = await p.queue.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
        const waiting = (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0);
        samples.push({ window, waiting, total: waiting + (counts.active ?? 0) });
        // The sampling period, not a wait: the samples are what the test asserts on.
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    try {
      await within(120_000, 'the campaign completed', done);
    } finally {
      sampling = false;
      await sampler;
    }

    const final = await p.ledger.status('steady');
    expect(final?.counts).toMatchObject({ total: ROWS, sent: ROWS, queued: 0 });
    expect(p.sandbox.accepted()).toHaveLength(ROWS);
    expect(p.sandbox.stats().duplicates).toBe(0);

    // Sampled while sending, not only before or after.
    const busy = samples.filter((s) => s.total > 0);
    expect(busy.length, `${samples.length} samples`).toBeGreaterThan(5);
    const most = {
      window: Math.max(...samples.map((s) => s.window)),
      waiting: Math.max(...samples.map((s) => s.waiting)),
      total: Math.max(...samples.map((s) => s.total)),
    };
    const context = JSON.stringify({ most, samples: samples.length });
    // The window was used (the bound is not vacuous) and never exceeded.
    expect(most.window, context).toBeGreaterThanOrEqual(WINDOW / 4);
    expect(most.window, context).toBeLessThanOrEqual(WINDOW);
    // Jobs no worker has taken yet are all in the window.
    expect(most.waiting, context).toBeLessThanOrEqual(WINDOW);
    // A job a worker has answered leaves the window before BullMQ moves it out of `active`: at
    // most the concurrency more.
    expect(most.total, context).toBeLessThanOrEqual(WINDOW + CONCURRENCY);
    expect(await p.ledger.windowSize(PHONE_NUMBER_ID)).toBe(0);
  }, 180_000);
});
