import { describe, expect, it } from 'vitest';
import { applyDeliveryEvent, type DeliveryEvent, type DeliveryState } from '../support/delivery-state.js';

/** A small seeded generator (mulberry32): the same orders every run, so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const fold = (start: DeliveryState, events: readonly DeliveryEvent[]) => events.reduce(applyDeliveryEvent, start);

describe('delivery state from status webhooks', () => {
  it('any order and any duplicates give one final state (10,000 shuffles of 40 event sets)', () => {
    const next = random(20261123);
    const kinds = ['sent', 'delivered', 'read', 'failed'] as const;
    let orders = 0;
    for (let set = 0; set < 40; set++) {
      // 3 to 9 events, some duplicated, timestamps colliding on purpose.
      const events: DeliveryEvent[] = [];
      const n = 3 + Math.floor(next() * 7);
      for (let i = 0; i < n; i++) {
        const kind = kinds[Math.floor(next() * kinds.length)] ?? 'sent';
        const event: DeliveryEvent = { kind, at: 1000 + Math.floor(next() * 5) * 1000 };
        if (kind === 'failed') Object.assign(event, { code: next() < 0.5 ? '131026' : '131049', detail: 'x' });
        events.push(event);
        if (next() < 0.3) events.push({ ...event });
      }
      const start: DeliveryState = { status: next() < 0.5 ? 'sent' : 'unknown' };
      const expected = fold(start, events);
      for (let k = 0; k < 250; k++) {
        expect(fold(start, shuffled(events, next))).toEqual(expected);
        orders++;
      }
    }
    expect(orders).toBe(10_000);
  });

  it('read implies delivered, at the earliest time seen; a late delivered moves it back, never forward', () => {
    expect(fold({ status: 'sent' }, [{ kind: 'read', at: 5000 }])).toEqual({ status: 'sent', deliveredAt: 5000, readAt: 5000 });
    expect(
      fold({ status: 'sent' }, [
        { kind: 'read', at: 5000 },
        { kind: 'delivered', at: 3000 },
      ]),
    ).toEqual({ status: 'sent', deliveredAt: 3000, readAt: 5000 });
    expect(
      fold({ status: 'sent' }, [
        { kind: 'delivered', at: 3000 },
        { kind: 'delivered', at: 4000 },
      ]),
    ).toEqual({ status: 'sent', deliveredAt: 3000 });
  });

  it('failed wins, with the earliest failure code; a row in doubt is settled by any status', () => {
    const failed = fold({ status: 'sent' }, [
      { kind: 'failed', at: 4000, code: '131049', detail: 'later' },
      { kind: 'delivered', at: 3000 },
      { kind: 'failed', at: 2000, code: '131026', detail: 'earlier' },
    ]);
    expect(failed).toEqual({ status: 'failed', deliveredAt: 3000, failedAt: 2000, code: '131026', detail: 'earlier' });
    expect(fold({ status: 'unknown' }, [{ kind: 'sent', at: 1 }]).status).toBe('sent');
    expect(fold({ status: 'sending' }, [{ kind: 'delivered', at: 1 }]).status).toBe('sent');
  });
});
