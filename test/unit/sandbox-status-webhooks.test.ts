import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AcceptedMessage } from '../../src/sandbox/accepted-log.js';
import { asyncFailure } from '../../src/sandbox/async-failures.js';
import { StatusWebhookSender, type StatusWebhookSettings } from '../../src/sandbox/status-webhooks.js';
import { inboundPayload } from '../../src/sandbox/webhook-payloads.js';
import { sandboxUserId } from '../../src/sandbox/user-ids.js';
import type { WebhookSink } from '../../src/sandbox/webhook-poster.js';

/**
 * When and in what shape the sandbox's status webhooks go out (reference §3.1–§3.3): timing,
 * failed statuses with their error object, duplicates, reordering and batching. Timers are
 * vitest's fake ones and the POSTs land in memory; signing and retrying are the poster's
 * (over real HTTP in test/integration/sandbox-webhooks.test.ts).
 */
interface Status {
  id: string;
  status: string;
  timestamp: string;
  recipient_id: string;
  errors?: unknown[];
}

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/reference/examples/${name}`, import.meta.url), 'utf8'));

class MemorySink implements WebhookSink {
  readonly posts: string[] = [];
  closed = false;
  post(payload: string): void {
    this.posts.push(payload);
  }
  /** Statuses per POST, in arrival order. */
  get batches(): Status[][] {
    return this.posts.map((raw) => {
      const body = JSON.parse(raw) as { entry: { changes: { value: { statuses: Status[] } }[] }[] };
      return body.entry.flatMap((e) => e.changes.flatMap((c) => c.value.statuses));
    });
  }
  get statuses(): Status[] {
    return this.batches.flat();
  }
}

const SETTINGS: StatusWebhookSettings = { url: 'http://127.0.0.1:9/webhook', appSecret: 's', readShare: 0 };

function message(n: number, extra: Partial<AcceptedMessage> = {}): AcceptedMessage {
  return {
    wamid: `wamid.M${n}`,
    phoneNumberId: '106540352242922',
    to: `+4477009001${n}`,
    waId: `4477009001${n}`,
    receivedAt: 1_700_000_000_000,
    body: {},
    ...extra,
  };
}

let sink: MemorySink;

beforeEach(() => {
  vi.useFakeTimers();
  sink = new MemorySink();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('StatusWebhookSender', () => {
  it('sends sent, then delivered, then read for an even share, timestamped when each happened', () => {
    const sender = new StatusWebhookSender({ ...SETTINGS, readShare: 0.5 }, sink);
    sender.accepted(message(1));
    sender.accepted(message(2));
    vi.advanceTimersByTime(150);
    expect(sink.statuses.map((s) => [s.id, s.status])).toEqual([
      ['wamid.M1', 'sent'],
      ['wamid.M2', 'sent'],
    ]);
    vi.advanceTimersByTime(3000);
    expect(sink.statuses.map((s) => s.status)).toEqual(['sent', 'sent', 'delivered', 'delivered', 'read']);
    // receivedAt + 2000 ms for read: the timestamps are the events', not the POSTs'.
    expect(sink.statuses.map((s) => s.timestamp)).toEqual(['1700000000', '1700000000', '1700000000', '1700000000', '1700000002']);
  });

  it("reports a webhook-only failure as sent then failed with Meta's error object, never delivered or read", () => {
    const sender = new StatusWebhookSender({ ...SETTINGS, readShare: 1 }, sink);
    sender.accepted(message(1, { failure: asyncFailure(131049, 'recipientErrors') }));
    vi.advanceTimersByTime(5000);
    expect(sink.statuses.map((s) => s.status)).toEqual(['sent', 'failed']);
    const failed = sink.statuses[1];
    // Same fields, same nesting as Meta's example (reference examples/webhook.status-failed.json).
    const example = (fixture('webhook.status-failed.json') as { entry: { changes: { value: { statuses: Status[] } }[] }[] }).entry[0]
      ?.changes[0]?.value.statuses[0];
    expect(Object.keys(failed ?? {}).sort()).toEqual(Object.keys(example ?? {}).sort());
    expect(failed?.errors).toEqual(example?.errors);
    // The whole POST has Meta's envelope too.
    const post = JSON.parse(sink.posts[1] ?? '{}') as Record<string, unknown>;
    expect(Object.keys(post)).toEqual(['object', 'entry']);
  });

  it('sends the failed status alone when sentBeforeFailed is off', () => {
    const sender = new StatusWebhookSender({ ...SETTINGS, sentBeforeFailed: false }, sink);
    sender.accepted(message(1, { failure: asyncFailure(131047, 'window') }));
    vi.advanceTimersByTime(150);
    expect(sink.statuses.map((s) => [s.status, (s.errors?.[0] as { code: number }).code])).toEqual([['failed', 131047]]);
    vi.advanceTimersByTime(5000);
    expect(sink.statuses).toHaveLength(1);
  });

  it('holds a held message until its release: then sent and delivered, or a dropped one failed 132015 alone', () => {
    const sender = new StatusWebhookSender(SETTINGS, sink);
    sender.accepted(message(1, { heldForMs: 3000 }));
    sender.accepted(message(2, { heldForMs: 3000, failure: asyncFailure(132015, 'held') }));
    vi.advanceTimersByTime(2900);
    expect(sink.statuses).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(sink.statuses.map((s) => [s.id, s.status, (s.errors?.[0] as { code: number } | undefined)?.code])).toEqual([
      ['wamid.M2', 'failed', 132015],
      ['wamid.M1', 'sent', undefined],
      ['wamid.M1', 'delivered', undefined],
    ]);
    // Timestamped at the release, not at the send.
    expect(sink.statuses[1]?.timestamp).toBe('1700000003');
  });

  it('delivers exactly duplicateShare of the statuses twice, each copy in a later POST than the first', () => {
    const sender = new StatusWebhookSender({ ...SETTINGS, duplicateShare: 0.25 }, sink);
    for (let n = 0; n < 10; n++) sender.accepted(message(n));
    vi.advanceTimersByTime(5000);
    const key = (s: Status) => `${s.id}/${s.status}`;
    const seen = new Map<string, number[]>();
    sink.batches.forEach((batch, post) => batch.forEach((s) => seen.set(key(s), [...(seen.get(key(s)) ?? []), post])));
    expect(seen.size).toBe(20);
    const twice = [...seen.values()].filter((posts) => posts.length === 2);
    expect(twice).toHaveLength(5);
    expect([...seen.values()].every((posts) => posts.length <= 2)).toBe(true);
    for (const [first, copy] of twice) expect(copy).toBeGreaterThan(first ?? Infinity);
  });

  it("reverses the arrival order of reorderShare of the messages, keeping each status's own timestamp", () => {
    const sender = new StatusWebhookSender({ ...SETTINGS, readShare: 1, reorderShare: 0.5 }, sink);
    // 900 ms before a second boundary: sent/delivered fall in one second, read in the next.
    for (let n = 0; n < 4; n++) sender.accepted(message(n, { receivedAt: 1_700_000_000_100 }));
    vi.advanceTimersByTime(5000);
    const orderOf = (id: string) => sink.statuses.filter((s) => s.id === id).map((s) => `${s.status}@${s.timestamp}`);
    const orders = [0, 1, 2, 3].map((n) => orderOf(`wamid.M${n}`));
    const inOrder = ['sent@1700000000', 'delivered@1700000000', 'read@1700000002'];
    expect(orders.filter((o) => JSON.stringify(o) === JSON.stringify(inOrder))).toHaveLength(2);
    expect(orders.filter((o) => JSON.stringify(o) === JSON.stringify([...inOrder].reverse()))).toHaveLength(2);
  });

  it('puts at most 1,000 statuses in one POST', () => {
    const sender = new StatusWebhookSender({ ...SETTINGS, deliveredAfterMs: 60_000 }, sink);
    for (let n = 0; n < 1500; n++) sender.accepted(message(n));
    vi.advanceTimersByTime(200);
    expect(sink.batches.map((b) => b.length)).toEqual([1000, 500]);
  });

  it('drops statuses not yet due on close', () => {
    const sender = new StatusWebhookSender(SETTINGS, sink);
    sender.accepted(message(1));
    vi.advanceTimersByTime(150);
    sender.close();
    vi.advanceTimersByTime(5000);
    expect(sink.statuses.map((s) => s.status)).toEqual(['sent']);
  });

  it.each(['duplicateShare', 'reorderShare', 'readShare'] as const)('refuses a %s outside 0..1', (key) => {
    expect(() => new StatusWebhookSender({ ...SETTINGS, [key]: 1.5 }, sink)).toThrow(RangeError);
  });
});

describe('inbound message payloads', () => {
  it.each([
    ['webhook.inbound-text.json', { kind: 'text' as const, body: 'STOP' }, undefined],
    [
      'webhook.inbound-button.json',
      { kind: 'button' as const, payload: 'STOP_PROMOS:row=000123', text: 'Stop promotions' },
      'wamid.SIMULATED000000000000000001',
    ],
  ])("match Meta's example %s field for field, with 2026's user IDs (from_user_id, contacts[].user_id)", (name, content, contextId) => {
    const example = fixture(name) as {
      entry: { changes: { value: { messages: Record<string, unknown>[]; contacts: Record<string, unknown>[] } }[] }[];
    };
    // Since April 2026 (reference cloud-api-2026.md §4) a message names its sender's business-scoped user ID too.
    const value = example.entry[0]?.changes[0]?.value;
    if (value === undefined) throw new Error('example without a change');
    value.messages = value.messages.map(({ from, ...rest }) => ({ from, from_user_id: 'GB.1', ...rest }));
    value.contacts = value.contacts.map((contact) => ({ ...contact, user_id: 'GB.1' }));
    const built = JSON.parse(
      inboundPayload({
        phoneNumberId: '200000000000002',
        waId: '447700900123',
        userId: sandboxUserId('447700900123'),
        name: 'Ana',
        id: 'wamid.X',
        at: 1_735_689_800_000,
        content,
        ...(contextId === undefined ? {} : { contextId }),
      }),
    ) as typeof example;
    const shape = (body: typeof example) =>
      JSON.stringify(body, (key, value: unknown) =>
        typeof value === 'string' && key !== 'type' && key !== 'field' && key !== 'object' ? typeof value : value,
      );
    expect(shape(built)).toBe(shape(example));
    expect(built.entry[0]?.changes[0]?.value.messages[0]).toMatchObject({
      from: '447700900123',
      from_user_id: sandboxUserId('447700900123'),
      id: 'wamid.X',
      timestamp: '1735689800',
      type: content.kind,
    });
  });
});
