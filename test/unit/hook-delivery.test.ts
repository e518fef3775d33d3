import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import type { CampaignEvent } from '../../src/events/campaign-event.js';
import { HookDelivery, type PostDelivery } from '../../src/hooks/hook-delivery.js';
import type { HookOutbox, QueuedHookEvent } from '../../src/hooks/hook-outbox.js';
import { silentLogger } from '../../src/logging/logger.js';

/** An outbox in memory: what the delivery acknowledged, counted and buried. */
class MemoryOutbox implements HookOutbox {
  waiting: QueuedHookEvent[] = [];
  delivered = 0;
  retried = 0;
  dead: { ids: string[]; reason: string }[] = [];
  lag: number | undefined;

  push(count: number, queuedAt: number, occurredAt = queuedAt): void {
    for (let i = 0; i < count; i += 1) {
      const n = this.waiting.length + this.delivered + 1;
      this.waiting.push({ entryId: `${n}-0`, event: eventAt(n, occurredAt), queuedAt });
    }
  }

  oldest(limit: number): Promise<QueuedHookEvent[]> {
    return Promise.resolve(this.waiting.slice(0, limit));
  }

  acknowledge(entryIds: readonly string[], lagSeconds: number): Promise<number> {
    this.#drop(entryIds);
    this.delivered += entryIds.length;
    this.lag = lagSeconds;
    return Promise.resolve(entryIds.length);
  }

  countRetried(events: number): Promise<void> {
    this.retried += events;
    return Promise.resolve();
  }

  bury(entryIds: readonly string[], _at: number, reason: string): Promise<number> {
    this.#drop(entryIds);
    this.dead.push({ ids: [...entryIds], reason });
    return Promise.resolve(entryIds.length);
  }

  #drop(entryIds: readonly string[]): void {
    this.waiting = this.waiting.filter((queued) => !entryIds.includes(queued.entryId));
  }
}

function eventAt(n: number, at: number): CampaignEvent {
  return { id: `evt_1_${n}`, type: 'row.sent', occurred_at: new Date(at).toISOString(), campaign_id: 'c', phone_number_id: '1', row: n };
}

/** A receiver that answers from a list (then 200), recording each batch's events. */
function receiver(answers: number[]): { post: PostDelivery; batches: string[][] } {
  const batches: string[][] = [];
  const post: PostDelivery = (_url, body) => {
    batches.push((JSON.parse(body) as { events: CampaignEvent[] }).events.map((e) => e.id));
    const status = answers.shift() ?? 200;
    return Promise.resolve(status < 300 ? { ok: true, status } : { ok: false, status, reason: `HTTP ${status}` });
  };
  return { post, batches };
}

function delivery(outbox: MemoryOutbox, post: PostDelivery, clock: { now: number }, retryMs = 60_000): HookDelivery {
  return new HookDelivery({
    name: 'crm',
    url: 'http://127.0.0.1:1/',
    secret: new Secret('s'),
    outbox,
    retryMs,
    logger: silentLogger(),
    post,
    now: () => clock.now,
  });
}

describe('a hook’s delivery', () => {
  it('waits for 100 events or a second, and sends at most 100 per batch', async () => {
    const clock = { now: 10_000 };
    const outbox = new MemoryOutbox();
    const { post, batches } = receiver([]);
    const hook = delivery(outbox, post, clock);
    outbox.push(99, clock.now);
    expect(await hook.step()).toBeGreaterThan(0);
    expect(batches).toHaveLength(0);
    outbox.push(2, clock.now);
    await hook.step();
    expect(batches.map((b) => b.length)).toEqual([100]);
    expect(outbox.waiting).toHaveLength(1);
    await hook.step();
    expect(batches).toHaveLength(1);
    clock.now += 1000;
    await hook.step();
    expect(batches.map((b) => b.length)).toEqual([100, 1]);
    expect(outbox.delivered).toBe(101);
    expect(outbox.lag).toBe(1);
  });

  it('retries the same batch, the later events behind it, and counts each event retried', async () => {
    const clock = { now: 10_000 };
    const outbox = new MemoryOutbox();
    const { post, batches } = receiver([500, 503]);
    const hook = delivery(outbox, post, clock);
    outbox.push(3, clock.now - 1000);
    expect(await hook.step()).toBeGreaterThanOrEqual(1000);
    outbox.push(2, clock.now);
    expect(await hook.step()).toBeGreaterThanOrEqual(2000);
    await hook.step();
    expect(batches).toEqual([
      ['evt_1_1', 'evt_1_2', 'evt_1_3'],
      ['evt_1_1', 'evt_1_2', 'evt_1_3', 'evt_1_4', 'evt_1_5'],
      ['evt_1_1', 'evt_1_2', 'evt_1_3', 'evt_1_4', 'evt_1_5'],
    ]);
    expect(outbox.retried).toBe(8);
    expect(outbox.delivered).toBe(5);
    expect(outbox.dead).toEqual([]);
  });

  it('moves a batch to the dead letters once its oldest was queued HOOK_RETRY_HOURS ago, then goes on', async () => {
    const clock = { now: 10_000 };
    const outbox = new MemoryOutbox();
    const { post, batches } = receiver([500, 500]);
    const hook = delivery(outbox, post, clock, 5000);
    outbox.push(2, clock.now - 1000);
    await hook.step();
    clock.now += 4000;
    expect(await hook.step()).toBe(0);
    expect(outbox.dead).toEqual([{ ids: ['1-0', '2-0'], reason: 'HTTP 500' }]);
    expect(outbox.retried).toBe(2);
    outbox.push(1, clock.now - 1000);
    await hook.step();
    expect(batches.at(-1)).toEqual(['evt_1_1']);
    expect(outbox.delivered).toBe(1);
  });
});
