import { describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { groupRows, groupSizeFor, rowsOf } from '../../src/campaigns/send-job.js';
import type { SendOutcome } from '../../src/campaigns/send/send-processor.js';
import { RequestSlots } from '../../src/campaigns/send/request-slots.js';
import { foldOutcomes } from '../../src/queue/send-group.js';
import { groupsAtOnce } from '../../src/queue/send-worker.js';

const rows: SendJob[] = [
  { campaignId: 'a', row: 1 },
  { campaignId: 'a', row: 2 },
  { campaignId: 'b', row: 1, requeue: 2 },
];
const ok = (value: SendOutcome): PromiseFulfilledResult<SendOutcome> => ({ status: 'fulfilled', value });
const done = ok({ kind: 'done', status: 'sent' });

describe('a group job: its rows, its size, its outcome', () => {
  it('reads its rows as the ledger keeps them, with each row’s pair delays', () => {
    const group = { group: 'g.a-1.3', rows: 'a 1 0,a 2 0,b 1 2', pairDelays: { 'a 2': 3 } };
    const inGroup = rows.map((row) => ({ ...row, inGroup: 'g.a-1.3' }));
    expect(groupRows(group)).toStrictEqual([inGroup[0], { ...inGroup[1], pairDelays: 3 }, inGroup[2]]);
    expect(rowsOf(group)).toBe(3);
    expect(rowsOf({ campaignId: 'a', row: 1 })).toBe(1);
  });

  it('holds about 100 ms of sending at the rate: one row a job below 20/s, 100 at most and when unpaced', () => {
    expect([4, 10, 19, 20, 80, 250, 1000, 5000, 0].map(groupSizeFor)).toEqual([1, 1, 1, 2, 8, 25, 100, 100, 100]);
  });

  it('runs enough groups at once to fill SEND_CONCURRENCY, with one ready behind when paced and three when not', () => {
    expect(groupsAtOnce(100, 100, 1000)).toBe(2);
    expect(groupsAtOnce(100, 8, 80)).toBe(14);
    expect(groupsAtOnce(100, 100, 0)).toBe(4);
    expect(groupsAtOnce(250, 100, 0)).toBe(6);
  });

  it('is done when every row is', () => {
    expect(foldOutcomes(rows, [done, ok({ kind: 'done', status: 'parked' }), done], {})).toEqual({ kind: 'done', rows: 3 });
  });

  it('goes back untouched when the worker stops, whatever else happened', () => {
    const outcome = foldOutcomes(rows, [ok({ kind: 'throttle-number', ms: 1000 }), ok({ kind: 'release' }), done], {});
    expect(outcome).toEqual({ kind: 'release' });
  });

  it('waits out the longest throttle before a retry', () => {
    const retry = ok({ kind: 'retry', error: new Error('503') });
    const outcome = foldOutcomes(rows, [retry, ok({ kind: 'throttle-number', ms: 1000 }), ok({ kind: 'throttle-number', ms: 60_000 })], {});
    expect(outcome).toEqual({ kind: 'throttle-number', ms: 60_000 });
  });

  it('fails the attempt for a row worth another one, or a row whose run threw', () => {
    const error = new Error('503');
    expect(foldOutcomes(rows, [done, ok({ kind: 'retry', error }), done], {})).toEqual({ kind: 'retry', error });
    const thrown = foldOutcomes(rows, [done, { status: 'rejected', reason: new Error('Redis away') }, done], {});
    expect(thrown.kind === 'retry' && thrown.error.message).toBe('Redis away');
  });

  it('delays for the pair rate limit by the longest delay asked, counting each delayed row', () => {
    const outcome = foldOutcomes(rows, [ok({ kind: 'delay-recipient', ms: 6000 }), done, ok({ kind: 'delay-recipient', ms: 12_000 })], {
      'a 1': 1,
    });
    expect(outcome).toEqual({ kind: 'delay-recipient', ms: 12_000, pairDelays: { 'a 1': 2, 'b 1': 1 } });
  });
});

describe('RequestSlots', () => {
  it('gives at most its size places at once, the others in the order they asked; a place given back twice counts once', async () => {
    const slots = new RequestSlots(2);
    const got: number[] = [];
    const releases = new Map<number, () => void>();
    const asks = [1, 2, 3, 4].map(async (n) => {
      const release = await slots.acquire();
      got.push(n);
      releases.set(n, release);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(got).toEqual([1, 2]);
    expect(slots.busy).toBe(2);
    releases.get(2)?.();
    releases.get(2)?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(got).toEqual([1, 2, 3]);
    releases.get(1)?.();
    await Promise.all(asks);
    expect(got).toEqual([1, 2, 3, 4]);
    releases.get(3)?.();
    releases.get(4)?.();
    expect(slots.busy).toBe(0);
  });
});
