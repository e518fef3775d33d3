import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import type { EventType } from '../../src/events/campaign-event.js';
import { RedisHookRegistry } from '../../src/redis/hooks/redis-hook-registry.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { FaultHarness } from '../support/fault-harness.js';
import { HookReceiver } from '../support/hook-receiver.js';
import { samplesOf, scrape } from './metrics-exposition.js';

/**
 * A hook on a real campaign: `campaign send` and `campaign worker` (child processes, the built
 * CLI) send to the sandbox, whose signed status webhooks reach `campaign serve` (in this
 * process), which delivers the campaign's events to a receiver that answers 500 for its first
 * 30 s. Once it recovers, every event arrives (each ID at least once; a receiver deduplicates
 * by ID), every batch is signed, and sending was not slowed: the same campaign sent before the
 * hook existed sets the rate to compare with.
 */
const ROWS = 750;
const SEND_RATE = 250;
const FAILING_MS = 30_000;
/** "Not slowed": the rate with the hook at least this share of the rate without (the pacer holds both near SEND_RATE). */
const RATE_BOUND = 0.8;

describe('an outbound hook on a campaign sent end to end, its receiver failing for 30 s', () => {
  let rig: FaultHarness;
  let receiver: HookReceiver;

  beforeAll(async () => {
    receiver = await HookReceiver.start();
    rig = await FaultHarness.start({
      label: 'hooks-delivery',
      rows: ROWS,
      sendRate: SEND_RATE,
      sandboxMps: 0,
      webhooks: true,
      // The same file twice: the second campaign must send, not skip its rows as already sent.
      workerEnv: { DUPLICATE_WINDOW_HOURS: '0' },
    });
  });

  afterAll(async () => {
    await rig?.close();
    await receiver?.close();
  });

  /** Sends the rig's file as a campaign and waits for it; answers its ID and its rate as the sandbox saw it (messages/s). */
  async function sendCampaign(): Promise<{ id: string; rate: number }> {
    const before = rig.accepted().length;
    const { id } = await rig.send();
    await rig.waitForCompletion(id, 60_000);
    await rig.waitForAccepted(before + ROWS, 30_000);
    const times = rig
      .accepted()
      .slice(before, before + ROWS)
      .map((m) => m.receivedAt);
    return { id, rate: ((ROWS - 1) * 1000) / Math.max(1, Math.max(...times) - Math.min(...times)) };
  }

  /** The events the ledger says the campaign must have produced: each row's sent, delivered and read, and its start and end. */
  async function expectedEvents(id: string): Promise<Set<string>> {
    const rows: RowRecord[] = await rig.inRedis(async (redis) => {
      const all: RowRecord[] = [];
      for await (const page of new RedisLedger(redis, rig.prefix).rows(id)) all.push(...page);
      return all;
    });
    const expected = new Set(['campaign.started', 'campaign.completed']);
    for (const row of rows) {
      if (row.status === 'sent') expected.add(`row.sent/${row.row}`);
      if (row.deliveredAt !== undefined) expected.add(`row.delivered/${row.row}`);
      if (row.readAt !== undefined) expected.add(`row.read/${row.row}`);
    }
    return expected;
  }

  function receivedEvents(id: string): Set<string> {
    return new Set(receiver.takenOf(id).map((e) => (e.row === undefined ? e.type : `${e.type}/${e.row}`)));
  }

  it('delivers every event once the receiver recovers, signed, without slowing the sends', { timeout: 180_000 }, async () => {
    await rig.startWorker();
    const without = await sendCampaign();

    const failingUntil = Date.now() + FAILING_MS;
    receiver.answer = () => (Date.now() < failingUntil ? 500 : 200);
    const added = await rig.cli(['hooks', 'add', receiver.url, '--events', 'all', '--name', 'crm', '--json']);
    receiver.secret = (JSON.parse(added.stdout) as { secret: string }).secret;
    const withHook = await sendCampaign();

    const id = withHook.id;
    const { expected, received } = await rig.pollUntil('every event of the campaign delivered', 120_000, 500, async () => {
      const expected = await expectedEvents(id);
      const received = receivedEvents(id);
      const waiting = await rig.inRedis((redis) => new RedisHookRegistry(redis, rig.prefix).figures('crm'));
      return [...expected].every((key) => received.has(key)) && waiting.waiting === 0 ? { expected, received } : undefined;
    });

    const ratio = withHook.rate / without.rate;
    console.log(
      `send rate without hooks ${without.rate.toFixed(1)}/s, with a hook whose receiver fails ${withHook.rate.toFixed(1)}/s ` +
        `(${ratio.toFixed(2)}x; bound >= ${RATE_BOUND}x; SEND_RATE ${SEND_RATE}, ${ROWS} rows each); ` +
        `${receiver.taken.size} events taken, ${receiver.duplicates} duplicates, ${receiver.batches.length} POSTs`,
    );
    expect(ratio).toBeGreaterThanOrEqual(RATE_BOUND);

    // Every row sent, and Meta's statuses as the sandbox posted them (every row delivered, reads as it chose).
    const types = (type: EventType) => [...expected].filter((key) => key.startsWith(`${type}/`)).length;
    expect(types('row.sent')).toBe(ROWS);
    expect(types('row.delivered')).toBe(ROWS);
    expect(types('row.read')).toBeGreaterThan(0);
    expect([...expected].filter((key) => !received.has(key))).toEqual([]);
    // Nothing got through while the receiver failed; every attempt was signed and stamped.
    const firstTaken = receiver.batches.findIndex((batch) => batch.status === 200);
    expect(receiver.batches.slice(0, firstTaken).length).toBeGreaterThan(0);
    expect(receiver.batches.every((b) => b.signatureValid && b.timestampMatches && b.hook === 'crm' && b.events.length <= 100)).toBe(true);
    expect(receiver.batches[0]?.userAgent).toMatch(/^campaign-worker\//);

    // The figures, in /metrics as in Redis.
    const metrics = await scrape(rig.service?.url ?? '');
    const value = (name: string) => samplesOf(metrics, name, { hook: 'crm' })[0]?.value ?? -1;
    expect(value('campaign_hook_events_delivered_total')).toBeGreaterThanOrEqual(receiver.taken.size);
    expect(value('campaign_hook_events_queued_total')).toBeGreaterThanOrEqual(value('campaign_hook_events_delivered_total'));
    expect(value('campaign_hook_events_retried_total')).toBeGreaterThan(0);
    expect(value('campaign_hook_events_dead_total')).toBe(0);
    expect(value('campaign_hook_events_waiting')).toBe(0);
    expect(value('campaign_hook_delivery_lag_seconds')).toBeGreaterThanOrEqual(0);
  });
});
