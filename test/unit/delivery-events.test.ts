import { describe, expect, it } from 'vitest';
import type { DeliveryLedger, InboundUpdate, StatusOutcome, StatusUpdate } from '../../src/campaigns/ledger.js';
import { retryParkedStatuses, settleDeliveryEvents } from '../../src/campaigns/settle/delivery-events.js';

/** A ledger that knows the wamids in `known` (`done` completes a campaign) and records each call's size. */
function stubLedger(known: Set<string>, done = new Set<string>()): DeliveryLedger & { statusCalls: number[]; preferences: number } {
  return {
    statusCalls: [],
    preferences: 0,
    applyStatuses(updates: readonly StatusUpdate[]): Promise<StatusOutcome[]> {
      this.statusCalls.push(updates.length);
      return Promise.resolve(
        updates.map((u) => ({ outcome: known.has(u.wamid) ? 'applied' : 'unmatched', completedCampaign: done.has(u.wamid) })),
      );
    },
    applyInbound(updates: readonly InboundUpdate[]) {
      return Promise.resolve(updates.map((u) => ({ answeredRow: u.replyTo !== undefined })));
    },
    applyPreferences(updates) {
      this.preferences += updates.length;
      return Promise.resolve();
    },
    serviceWindowsOpen: () => Promise.resolve([]),
    applyTemplateStatus: () => Promise.resolve([]),
    recordTemplateInfo: () => Promise.resolve(),
  };
}

const status = (wamid: string): StatusUpdate => ({ phoneNumberId: '1', wamid, kind: 'delivered', at: 1000 });
const inbound = (wamid: string, extra: Partial<InboundUpdate> = {}): InboundUpdate => ({
  phoneNumberId: '1',
  waId: '15550001',
  wamid,
  at: 1000,
  optOut: false,
  ...extra,
});

/** Settling what Meta tells after a send: statuses in chunks, then messages and preferences; the unknown kept for later. */
describe('settleDeliveryEvents', () => {
  it('applies statuses in calls of at most 500, counts each outcome, and returns those no row knows yet', async () => {
    const statuses = Array.from({ length: 1200 }, (_, i) => status(`w${i}`));
    const ledger = stubLedger(new Set(statuses.slice(0, 1100).map((s) => s.wamid)), new Set(['w5']));
    const lag: string[] = [];
    const { counts, unmatched } = await settleDeliveryEvents(ledger, { statuses, inbound: [], preferences: [] }, (u) => lag.push(u.wamid));
    expect(ledger.statusCalls).toEqual([500, 500, 200]);
    expect(counts).toEqual({ statuses: 1200, applied: 1100, unmatched: 100, completed: 1 });
    expect(unmatched.map((u) => u.wamid)).toEqual(statuses.slice(1100).map((s) => s.wamid));
    expect(lag).toHaveLength(1100);
  });

  it('records users’ messages (replies and opt-out keywords counted) and their preferences', async () => {
    const ledger = stubLedger(new Set());
    const { counts, unmatched } = await settleDeliveryEvents(ledger, {
      statuses: [],
      inbound: [inbound('m1', { replyTo: 'w1' }), inbound('m2', { optOut: true }), inbound('m3')],
      preferences: [{ phoneNumberId: '1', waId: '15550001', value: 'stop', at: 1000 }],
    });
    expect(counts).toEqual({ statuses: 0, inbound: 3, replies: 1, optOutKeywords: 1, preferences: 1 });
    expect(unmatched).toEqual([]);
    expect(ledger.statusCalls).toEqual([]);
    expect(ledger.preferences).toBe(1);
  });
});

describe('retryParkedStatuses', () => {
  it('is done with statuses that found their row and with those parked parkMs or longer (another tool’s), keeps the rest', async () => {
    const ledger = stubLedger(new Set(['found']));
    const parked = [
      { update: status('found'), parkedAt: 0, member: 'a' },
      { update: status('young'), parkedAt: 9_000, member: 'b' },
      { update: status('old'), parkedAt: 0, member: 'c' },
    ];
    const lag: string[] = [];
    const { done, foreign } = await retryParkedStatuses(ledger, parked, { now: 10_000, parkMs: 10_000 }, (u) => lag.push(u.wamid));
    expect(done.map((p) => p.member)).toEqual(['a', 'c']);
    expect(foreign).toBe(1);
    expect(lag).toEqual(['found']);
  });
});
