import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CampaignEvent } from '../../src/events/campaign-event.js';
import { BATCH_MAX_EVENTS, batchDue, hookBatchRequest, hookTestEvent } from '../../src/hooks/hook-batch.js';
import { hookWants } from '../../src/hooks/hook-filter.js';

const event = (n: number, over: Partial<CampaignEvent> = {}): CampaignEvent => ({
  id: `evt_1555_${n}_0`,
  type: 'row.sent',
  occurred_at: '2026-03-01T10:00:00.000Z',
  campaign_id: 'c1',
  phone_number_id: '1555',
  row: n,
  phone: '+4915100000000',
  message_id: `wamid.${n}`,
  ...over,
});

describe('a batch’s body and signature', () => {
  const now = Date.parse('2026-03-01T10:00:05.678Z');
  const request = hookBatchRequest('crm', [event(1), event(2)], 'the-secret', now);

  it('is {hook, sent_at, events}, sent_at the timestamp header’s second', () => {
    const body = JSON.parse(request.body) as { hook: string; sent_at: string; events: CampaignEvent[] };
    expect(Object.keys(body)).toEqual(['hook', 'sent_at', 'events']);
    expect(body.hook).toBe('crm');
    expect(body.events).toEqual([event(1), event(2)]);
    expect(body.sent_at).toBe('2026-03-01T10:00:05.000Z');
    expect(request.headers['x-campaign-timestamp']).toBe(String(Math.floor(now / 1000)));
    expect(Date.parse(body.sent_at) / 1000).toBe(Number(request.headers['x-campaign-timestamp']));
    expect(request.headers['x-campaign-hook']).toBe('crm');
    expect(request.headers['user-agent']).toMatch(/^campaign-worker\//);
  });

  it('is signed as docs/events.md verifies it: HMAC-SHA256 of the raw body, hex, after sha256=', () => {
    const header = request.headers['x-campaign-signature'] ?? '';
    const expected = `sha256=${createHmac('sha256', 'the-secret').update(request.body).digest('hex')}`;
    expect(timingSafeEqual(Buffer.from(header), Buffer.from(expected))).toBe(true);
    // Another secret, or one byte changed, does not verify.
    expect(header).not.toBe(`sha256=${createHmac('sha256', 'other').update(request.body).digest('hex')}`);
    expect(header).not.toBe(`sha256=${createHmac('sha256', 'the-secret').update(`${request.body} `).digest('hex')}`);
  });

  it('holds no secret', () => {
    expect(request.body).not.toContain('the-secret');
    expect(Object.values(request.headers).join(' ')).not.toContain('the-secret');
  });

  it('test events are hook.test, each with its own ID', () => {
    const a = hookTestEvent(now);
    expect(a.type).toBe('hook.test');
    expect(a.id).not.toBe(hookTestEvent(now).id);
  });
});

describe('when a batch is due', () => {
  const at = 1_000_000;
  it('at once when 100 wait', () => {
    const full = Array.from({ length: BATCH_MAX_EVENTS }, () => ({ queuedAt: at }));
    expect(batchDue(full, at)).toEqual({ due: true });
    expect(batchDue(full.slice(1), at)).toEqual({ due: false, dueInMs: 1000 });
  });

  it('when the oldest has waited a second, from the earlier of its event and its queueing', () => {
    expect(batchDue([{ queuedAt: at }], at + 999)).toEqual({ due: false, dueInMs: 1 });
    expect(batchDue([{ queuedAt: at }], at + 1000)).toEqual({ due: true });
    expect(batchDue([{ queuedAt: at, occurredAt: at - 600 }], at + 400)).toEqual({ due: true });
    expect(batchDue([{ queuedAt: at, occurredAt: at + 5000 }], at + 400)).toEqual({ due: false, dueInMs: 600 });
  });

  it('never with nothing waiting', () => {
    expect(batchDue([], at).due).toBe(false);
  });
});

describe('which events a hook gets', () => {
  it('its events only, and its campaign’s only when it names one', () => {
    const every = { events: ['row.sent' as const, 'campaign.completed' as const] };
    expect(hookWants(every, { type: 'row.sent', campaign_id: 'c1' })).toBe(true);
    expect(hookWants(every, { type: 'row.read', campaign_id: 'c1' })).toBe(false);
    const one = { ...every, campaignId: 'c2' };
    expect(hookWants(one, { type: 'row.sent', campaign_id: 'c1' })).toBe(false);
    expect(hookWants(one, { type: 'campaign.completed', campaign_id: 'c2' })).toBe(true);
  });
});
