import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AcceptedMessage } from '../../src/sandbox/accepted-log.js';
import { asyncFailure } from '../../src/sandbox/async-failures.js';
import { pricingAnalytics } from '../../src/sandbox/pricing-analytics.js';
import { StatusWebhookSender, type StatusWebhookSettings } from '../../src/sandbox/status-webhooks.js';
import type { WebhookSink } from '../../src/sandbox/webhook-poster.js';
import { parseWebhook } from '../../src/webhooks/webhook-events.js';

/**
 * The sandbox's statuses under per-message pricing (reference cloud-api-2026.md §1, §5): from
 * v24 no `conversation` and `pricing` on one status per message; before v24 both, on sent and
 * delivered, in the shape of Meta's example; none on a failed message. And the WABA's
 * `pricing_analytics`, answered from what was delivered, refused as Graph refuses bad parameters.
 */
type Status = Record<string, unknown> & { id: string; status: string };

class MemorySink implements WebhookSink {
  readonly posts: string[] = [];
  closed = false;
  post(payload: string): void {
    this.posts.push(payload);
  }
  get statuses(): Status[] {
    return this.posts.flatMap((raw) => {
      const body = JSON.parse(raw) as { entry: { changes: { value: { statuses: Status[] } }[] }[] };
      return body.entry.flatMap((e) => e.changes.flatMap((c) => c.value.statuses));
    });
  }
}

const SETTINGS: StatusWebhookSettings = { url: 'http://127.0.0.1:9/webhook', appSecret: 's', readShare: 1 };
const OCT_2026 = Date.UTC(2026, 9, 5, 12);

function message(n: number, extra: Partial<AcceptedMessage> = {}, text = false): AcceptedMessage {
  const m: AcceptedMessage = {
    wamid: `wamid.P${n}`,
    phoneNumberId: '106540352242922',
    to: `+9198765432${10 + n}`,
    waId: `9198765432${10 + n}`,
    receivedAt: OCT_2026,
    body: {},
    category: 'MARKETING',
    apiMajor: 25,
    ...extra,
  };
  if (text) delete m.category;
  return m;
}

let sink: MemorySink;
beforeEach(() => {
  vi.useFakeTimers();
  sink = new MemorySink();
});
afterEach(() => {
  vi.useRealTimers();
});

function statusesOf(settings: StatusWebhookSettings, ...messages: AcceptedMessage[]): Status[] {
  const sender = new StatusWebhookSender(settings, sink);
  for (const m of messages) sender.accepted(m);
  vi.advanceTimersByTime(5000);
  return sink.statuses;
}

describe('pricing on the sandbox statuses', () => {
  it('from v24: pricing once per message (on delivered by default), never a conversation', () => {
    const statuses = statusesOf(SETTINGS, message(1), message(2, { apiMajor: 24 }), message(3, { apiMajor: 26 }));
    for (const id of ['wamid.P1', 'wamid.P2', 'wamid.P3']) {
      const own = statuses.filter((s) => s.id === id);
      expect(own.map((s) => s.status)).toEqual(['sent', 'delivered', 'read']);
      expect(own.filter((s) => 'pricing' in s).map((s) => s.status)).toEqual(['delivered']);
      expect(own.filter((s) => 'conversation' in s)).toEqual([]);
    }
    expect(statuses.find((s) => 'pricing' in s)?.pricing).toEqual({
      billable: true,
      pricing_model: 'PMP',
      type: 'regular',
      category: 'marketing',
    });
  });

  it('pricingOn moves it to sent; the webhook version setting wins over the send call', () => {
    const statuses = statusesOf({ ...SETTINGS, pricingOn: 'sent', version: 'v25.0' }, message(1, { apiMajor: 23 }));
    expect(statuses.filter((s) => 'pricing' in s).map((s) => s.status)).toEqual(['sent']);
    expect(statuses.filter((s) => 'conversation' in s)).toEqual([]);
  });

  it("before v24: conversation and pricing on sent and delivered, in the shape of Meta's example", () => {
    const statuses = statusesOf(SETTINGS, message(1, { apiMajor: 23 }));
    expect(statuses.filter((s) => 'pricing' in s).map((s) => s.status)).toEqual(['sent', 'delivered']);
    expect(statuses.filter((s) => 'conversation' in s).map((s) => s.status)).toEqual(['sent', 'delivered']);
    const example = (
      JSON.parse(readFileSync(new URL('../fixtures/reference/examples/webhook.status-sent.json', import.meta.url), 'utf8')) as {
        entry: { changes: { value: { statuses: Status[] } }[] }[];
      }
    ).entry[0]?.changes[0]?.value.statuses[0];
    const sent = statuses[0];
    expect(Object.keys(sent?.conversation as object).sort()).toEqual(Object.keys(example?.conversation as object).sort());
    expect(Object.keys(sent?.pricing as object).sort()).toEqual(Object.keys(example?.pricing as object).sort());
  });

  it('a failed message carries no pricing; the Marketing Messages API is marketing_lite; a text is service', () => {
    const statuses = statusesOf(
      SETTINGS,
      message(1, { failure: asyncFailure(131049, 'recipientErrors') }),
      message(2, { endpoint: 'marketing_messages' }),
      message(3, {}, true),
      message(4, { receivedAt: Date.UTC(2026, 8, 30) }, true),
    );
    expect(statuses.filter((s) => s.id === 'wamid.P1' && 'pricing' in s)).toEqual([]);
    const pricing = (id: string) => statuses.find((s) => s.id === id && 'pricing' in s)?.pricing;
    expect(pricing('wamid.P2')).toMatchObject({ category: 'marketing_lite', billable: true });
    expect(pricing('wamid.P3')).toMatchObject({ category: 'service', type: 'regular', billable: true });
    expect(pricing('wamid.P4')).toMatchObject({ category: 'service', type: 'free_customer_service', billable: false });
  });

  it("the product's parser reads it once per message, with the recipient's market", () => {
    statusesOf(SETTINGS, message(1));
    const parsed = sink.posts.flatMap((raw) => {
      const result = parseWebhook(raw);
      return result.ok ? result.events.statuses : [];
    });
    expect(parsed.filter((s) => s.pricing !== undefined)).toEqual([
      expect.objectContaining({ kind: 'delivered', pricing: { category: 'marketing', billable: true, market: 'India' } }),
    ]);
  });
});

describe('pricing_analytics of the sandbox', () => {
  const start = Math.floor(Date.UTC(2026, 9, 1) / 1000);
  const end = Math.floor(Date.UTC(2026, 9, 8) / 1000);
  const delivered = [message(1), message(2), message(3, { to: '+5511987654321', waId: '5511987654321' })];
  const failed = message(4, { failure: asyncFailure(131049, 'recipientErrors') });

  it('counts and prices what was delivered, by the dimensions asked for', () => {
    const day = Date.UTC(2026, 9, 5) / 1000;
    const answer = pricingAnalytics(
      `pricing_analytics.start(${start}).end(${end}).granularity(DAILY).dimensions(["PRICING_CATEGORY","COUNTRY"])`,
      [...delivered, failed],
    );
    expect(answer).toEqual({
      value: {
        data: [
          {
            data_points: [
              { start: day, end: day + 86_400, pricing_category: 'MARKETING', country: 'IN', volume: 2, cost: 0.0236 },
              { start: day, end: day + 86_400, pricing_category: 'MARKETING', country: 'BR', volume: 1, cost: 0.0625 },
            ],
          },
        ],
      },
    });
  });

  it.each([
    [`pricing_analytics.end(${end}).granularity(DAILY)`, 'The parameter start is required'],
    [`pricing_analytics.start(${start}).end(${end})`, 'The parameter granularity is required'],
    [`pricing_analytics.start(${start}).end(${end}).granularity(WEEKLY)`, 'granularity must be one of {HALF_HOUR, DAILY, MONTHLY}'],
    [`pricing_analytics.start(${end}).end(${start}).granularity(DAILY)`, 'end must be after start'],
    [`pricing_analytics.start(${start - 100 * 86_400}).end(${end}).granularity(DAILY)`, 'at most 90 days'],
    [`pricing_analytics.start(${start}).end(${end}).granularity(DAILY).dimensions(["REGION"])`, 'dimensions[] must be one of'],
    [`pricing_analytics.start(${start}).end(${end}).granularity(DAILY).colour(red)`, 'does not take the parameter colour'],
    [`pricing_analytics.start(2026-10-01).end(${end}).granularity(DAILY)`, 'must be UNIX timestamps'],
  ])('refuses %s with 100: %s', (field, expected) => {
    const answer = pricingAnalytics(field, delivered);
    expect('error' in answer && answer.error.code).toBe(100);
    expect('error' in answer ? answer.error.message : '').toContain(expected);
  });
});
