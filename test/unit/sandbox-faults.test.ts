import { describe, expect, it } from 'vitest';
import { DuplicateSends, canonicalJson } from '../../src/sandbox/duplicate-sends.js';
import { faultSettingsSchema } from '../../src/sandbox/fault-settings.js';
import { FaultInjector, inThrottleBurst } from '../../src/sandbox/faults.js';
import { toGraphError } from '../../src/sandbox/graph-error.js';
import { PAIR_LIMIT_ERROR, THROUGHPUT_ERROR } from '../../src/sandbox/limit-errors.js';
import { RequestStats } from '../../src/sandbox/request-stats.js';
import { SandboxRuntime, type SendReply } from '../../src/sandbox/sandbox-runtime.js';
import { FIXTURE_TEMPLATES, orderUpdate } from './sandbox-fixtures.js';

/** Fault decisions, forced recipient errors, request and duplicate counting (no server). */
const draws = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length] ?? 0;
};

const codeOf = (reply: SendReply): number => ('error' in reply.body ? reply.body.error.code : reply.status);
const NUMBER = '106540352242922';

describe('FaultInjector: random faults', () => {
  it('decides nothing when no faults are set', () => {
    expect(new FaultInjector(() => 0).decide(0, NUMBER)).toEqual({ kind: 'none' });
  });

  it('splits one draw between errors and timeouts', () => {
    const faults = new FaultInjector(draws(0.05, 0.9, 0.15, 0.5));
    faults.set({ errorRate: 0.1, timeoutRate: 0.1, errorStatuses: [503] }, 0);
    expect(faults.decide(0, NUMBER)).toEqual({
      kind: 'error',
      error: expect.objectContaining({ code: 133004, status: 503 }) as unknown,
    });
    expect(faults.decide(0, NUMBER)).toEqual({ kind: 'timeout' });
    expect(faults.decide(0, NUMBER)).toEqual({ kind: 'none' });
  });

  it('maps 500 to 131000 and refuses out-of-range settings', () => {
    const faults = new FaultInjector(() => 0);
    faults.set({ errorRate: 1, errorStatuses: [500] }, 0);
    expect(faults.decide(0, NUMBER)).toMatchObject({ kind: 'error', error: { code: 131000, status: 500 } });
    expect(() => faults.set({ errorRate: 2 }, 0)).toThrow();
    expect(() => faults.set({ errorStatuses: [404] }, 0)).toThrow();
  });
});

describe('FaultInjector: throttle bursts', () => {
  const bursts = { everyMs: 1000, forMs: 200 };

  it('throttles the first forMs of every everyMs, aligned on the clock', () => {
    const at = [0, 199, 200, 999, 1000, 1199, 1200, 5150, 5250];
    expect(at.map((now) => inThrottleBurst(bursts, now))).toEqual([true, true, false, false, true, true, false, true, false]);
    expect(inThrottleBurst({ everyMs: 50, forMs: 50 }, 1234)).toBe(true);
    expect(inThrottleBurst(bursts, -900)).toBe(true);
    expect(inThrottleBurst(bursts, -100)).toBe(false);
  });

  it("answers the throughput limiter's own 130429 inside a burst and nothing outside it", () => {
    const faults = new FaultInjector(() => 0.99);
    faults.set({ throttleBursts: bursts }, 0);
    const inside = faults.decide(10_050, NUMBER);
    expect(inside).toEqual({ kind: 'error', error: { ...THROUGHPUT_ERROR } });
    if (inside.kind !== 'error') throw new Error('expected an error');
    const reply = toGraphError(inside.error);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 130429, message: '(#130429) Rate limit hit' });
    expect(faults.decide(10_500, NUMBER)).toEqual({ kind: 'none' });
  });

  it('wins over the random faults inside a burst and leaves them alone outside it', () => {
    const faults = new FaultInjector(() => 0);
    faults.set({ throttleBursts: bursts, timeoutRate: 1 }, 0);
    expect(faults.decide(100, NUMBER)).toMatchObject({ kind: 'error', error: { code: 130429 } });
    expect(faults.decide(300, NUMBER)).toEqual({ kind: 'timeout' });
  });
});

describe('FaultInjector: recipient errors', () => {
  it('forces a synchronous code exactly `times` times for that recipient only, as HTTP 400', () => {
    const faults = new FaultInjector();
    faults.set({ recipientErrors: [{ waId: '447700900123', code: 131030, times: 2 }] }, 0);
    expect(faults.recipientError('447700900999')).toBeUndefined();
    const first = faults.recipientError('447700900123');
    expect(first).toMatchObject({ code: 131030, status: 400 });
    expect(toGraphError(first ?? THROUGHPUT_ERROR).body.error.message).toBe('(#131030) Recipient phone number not in allowed list');
    expect(faults.forcedFailure('447700900123')).toBeUndefined();
    expect(faults.recipientError('447700900123')).toMatchObject({ code: 131030 });
    expect(faults.recipientError('447700900123')).toBeUndefined();
  });

  it.each([131026, 131047, 131049, 131050])(
    'never answers the webhook-only code %i synchronously: it is a later failure, `times` times',
    (code) => {
      const faults = new FaultInjector();
      faults.set({ recipientErrors: [{ waId: '447700900123', code, times: 2 }] }, 0);
      expect(faults.recipientError('447700900123')).toBeUndefined();
      expect(faults.forcedFailure('447700900999')).toBeUndefined();
      expect(faults.forcedFailure('447700900123')).toMatchObject({
        code,
        cause: 'recipientErrors',
        details: expect.any(String) as unknown,
      });
      expect(faults.forcedFailure('447700900123')).toMatchObject({ code });
      expect(faults.forcedFailure('447700900123')).toBeUndefined();
    },
  );

  it('reuses the pair-limit details for 131056 and answers 400 even for a 5xx code', () => {
    const faults = new FaultInjector();
    faults.set(
      {
        recipientErrors: [
          { waId: '4915110000001', code: 131056, times: 1 },
          { waId: '4915110000002', code: 131000, times: 1 },
        ],
      },
      0,
    );
    expect(faults.recipientError('4915110000001')).toEqual({ ...PAIR_LIMIT_ERROR, status: 400 });
    expect(toGraphError(faults.recipientError('4915110000002') ?? THROUGHPUT_ERROR).status).toBe(400);
  });

  it('restarts the counters when faults are set again, and drops them when left out', () => {
    const faults = new FaultInjector();
    const settings = { recipientErrors: [{ waId: '447700900123', code: 131030, times: 1 }] };
    faults.set(settings, 0);
    expect(faults.recipientError('447700900123')).toBeDefined();
    expect(faults.recipientError('447700900123')).toBeUndefined();
    faults.set(settings, 0);
    expect(faults.recipientError('447700900123')).toBeDefined();
    faults.set(settings, 0);
    faults.set({}, 0);
    expect(faults.recipientError('447700900123')).toBeUndefined();
    // The settings as given stay visible (GET /_sandbox/faults), not the used-up counters.
    faults.set(settings, 0);
    faults.recipientError('447700900123');
    expect(faults.current).toEqual(settings);
  });
});

describe('faultSettingsSchema', () => {
  const problem = (settings: unknown): string => {
    const parsed = faultSettingsSchema.safeParse(settings);
    if (parsed.success) throw new Error(`expected ${JSON.stringify(settings)} to be refused`);
    return JSON.stringify(parsed.error.issues);
  };

  it('accepts the new fields at their bounds', () => {
    const settings = {
      throttleBursts: { everyMs: 1000, forMs: 1000 },
      recipientErrors: [{ waId: '1234567', code: 130429, times: 1 }],
    };
    expect(faultSettingsSchema.parse(settings)).toEqual(settings);
  });

  it('refuses bursts longer than their period, zero or fractional lengths, and unknown keys', () => {
    expect(problem({ throttleBursts: { everyMs: 1000, forMs: 1001 } })).toMatch(/forMs must not exceed everyMs/);
    expect(problem({ throttleBursts: { everyMs: 0, forMs: 0 } })).toMatch(/everyMs/);
    expect(problem({ throttleBursts: { everyMs: 1000, forMs: 0.5 } })).toMatch(/whole number/);
    expect(problem({ throttleBursts: { everyMs: 1000 } })).toMatch(/forMs/);
    expect(problem({ throttleBursts: { everyMs: 1000, forMs: 10, every: 1 } })).toMatch(/every/);
  });

  it('refuses a waId that is not bare digits, a repeated waId, and times below 1', () => {
    expect(problem({ recipientErrors: [{ waId: '+447700900123', code: 131026, times: 1 }] })).toMatch(/digits only/);
    const twice = { waId: '447700900123', code: 131026, times: 1 };
    expect(problem({ recipientErrors: [twice, twice] })).toMatch(/only once/);
    expect(problem({ recipientErrors: [{ waId: '447700900123', code: 131026, times: 0 }] })).toMatch(/times/);
    expect(problem({ recipientErrors: [{ waId: '447700900123', code: 'x', times: 1 }] })).toMatch(/code/);
  });
});

describe('RequestStats', () => {
  it('counts every request and the most in any sliding 1000 ms', () => {
    const stats = new RequestStats();
    for (const t of [0, 10, 990, 1500, 1600, 1700, 1989, 2600]) stats.record(t);
    expect(stats.requests).toBe(8);
    expect(stats.busiestSecond).toBe(5);
  });

  it('stays right after dropping expired times, and reset forgets everything', () => {
    const stats = new RequestStats();
    // 10 a second for 500 s, then a burst of 50 within one window.
    for (let t = 0; t < 500_000; t += 100) stats.record(t);
    for (let i = 0; i < 50; i++) stats.record(600_000 + i);
    expect(stats.requests).toBe(5050);
    expect(stats.busiestSecond).toBe(50);
    stats.reset();
    stats.record(600_010);
    expect([stats.requests, stats.busiestSecond]).toEqual([1, 1]);
  });
});

describe('DuplicateSends', () => {
  const template = { name: 'order_update', language: { code: 'en_US' }, components: [] };

  it('counts repeats of the same number, recipient and content', () => {
    const sends = new DuplicateSends();
    expect(sends.record('p', '447700900123', 'template', { template })).toBe(false);
    expect(sends.record('p', '447700900123', 'template', { template })).toBe(true);
    expect(sends.record('p', '447700900123', 'template', { template })).toBe(true);
    expect(sends.record('q', '447700900123', 'template', { template })).toBe(false);
    expect(sends.record('p', '447700900124', 'template', { template })).toBe(false);
    expect(sends.record('p', '447700900123', 'template', { template: { ...template, name: 'x' } })).toBe(false);
    expect(sends.duplicates).toBe(2);
  });

  it('ignores key order, and keys on biz_opaque_callback_data when present', () => {
    const sends = new DuplicateSends();
    sends.record('p', '1', 'template', { template });
    const reordered = { components: [], language: { code: 'en_US' }, name: 'order_update' };
    expect(sends.record('p', '1', 'template', { template: reordered })).toBe(true);
    expect(sends.record('p', '1', 'template', { template, biz_opaque_callback_data: 'row-1' })).toBe(false);
    const other = { ...template, name: 'other' };
    expect(sends.record('p', '1', 'template', { template: other, biz_opaque_callback_data: 'row-1' })).toBe(true);
    expect(sends.record('p', '1', 'template', { template, biz_opaque_callback_data: 'row-2' })).toBe(false);
    sends.reset();
    expect(sends.duplicates).toBe(0);
    expect(sends.record('p', '1', 'template', { template })).toBe(false);
  });

  it('serialises canonically', () => {
    expect(canonicalJson({ b: [1, { d: null, c: 'x' }], a: true })).toBe('{"a":true,"b":[1,{"c":"x","d":null}]}');
  });
});

describe('SandboxRuntime with faults', () => {
  function runtime(options: { perSecond?: number; burst?: number } = {}) {
    let now = 1_000_000;
    const rt = new SandboxRuntime({
      templates: FIXTURE_TEMPLATES,
      accessToken: 't',
      phoneNumberIds: ['123'],
      messagesPerSecond: options.perSecond ?? 80,
      pairLimit: options.burst === undefined ? false : { burst: options.burst, refillMs: 6000 },
      onListenerError: () => undefined,
      clock: () => now,
      random: () => 0.5,
    });
    return { rt, advance: (ms: number) => (now += ms) };
  }

  it('applies a forced recipient error after validation and before the limits, using no quota', () => {
    const { rt } = runtime({ perSecond: 1, burst: 1 });
    rt.setFaults({ recipientErrors: [{ waId: '447700900123', code: 131030, times: 2 }] });
    // An invalid send to that recipient is refused by validation and does not use a forced error.
    expect(codeOf(rt.send('123', orderUpdate({ messaging_product: 'sms' })))).toBe(100);
    expect(codeOf(rt.send('123', orderUpdate()))).toBe(131030);
    expect(codeOf(rt.send('123', orderUpdate()))).toBe(131030);
    // Neither forced error took the one throughput slot or the pair's single token.
    expect(codeOf(rt.send('123', orderUpdate()))).toBe(200);
    expect(rt.stats()).toMatchObject({ accepted: 1, rejectedByCode: { '100': 1, '131030': 2 }, failedByCode: {} });
  });

  it('counts admitted requests and their busiest second, and duplicates only among accepted sends', () => {
    const { rt, advance } = runtime({ perSecond: 2 });
    for (let i = 0; i < 3; i++) {
      rt.admitRequest('123');
      rt.send('123', orderUpdate());
      advance(100);
    }
    advance(2000);
    rt.admitRequest('123');
    rt.send('123', orderUpdate());
    // Accepted: 1st, 2nd (a duplicate) and the last (another); the 3rd was refused with 130429.
    expect(rt.stats()).toEqual({
      accepted: 3,
      rejectedByCode: { '130429': 1 },
      busiestSecond: 2,
      requests: 4,
      busiestRequestSecond: 3,
      duplicates: 2,
      failedByCode: {},
      mediaUploads: {},
    });
  });

  it('holds every n-th template send (held fault), answering held_for_quality_assessment; drops its dropShare with 132015', () => {
    const { rt } = runtime();
    rt.setFaults({ held: { share: 0.5, releaseAfterMs: 2000, dropShare: 0.5 } });
    const statuses = Array.from({ length: 4 }, () => {
      const reply = rt.send('123', orderUpdate());
      return 'messages' in reply.body ? reply.body.messages[0].message_status : undefined;
    });
    expect(statuses).toEqual(['accepted', 'held_for_quality_assessment', 'accepted', 'held_for_quality_assessment']);
    const held = rt.log.all.filter((m) => m.heldForMs !== undefined);
    expect(held.map((m) => [m.heldForMs, m.failure?.code])).toEqual([
      [2000, undefined],
      [2000, 132015],
    ]);
    expect(rt.stats().failedByCode).toEqual({ '132015': 1 });
    expect(() => rt.setFaults({ held: { share: 1.5 } })).toThrow(/share/);
  });

  it('decides a throttle burst on the runtime clock', () => {
    const { rt, advance } = runtime();
    rt.setFaults({ throttleBursts: { everyMs: 10_000, forMs: 1000 } });
    // The clock starts at 1_000_000: the first ms of a 10 s period.
    expect(rt.admitRequest('123')).toMatchObject({ kind: 'error', error: { code: 130429 } });
    advance(1000);
    expect(rt.admitRequest('123')).toEqual({ kind: 'none' });
    expect(rt.stats().requests).toBe(2);
  });
});
