import { describe, expect, it } from 'vitest';
import { AcceptedLog, type AcceptedMessage } from '../../src/sandbox/accepted-log.js';
import { PairLimiter } from '../../src/sandbox/pair-limiter.js';
import { SandboxRuntime } from '../../src/sandbox/sandbox-runtime.js';
import { SERVICE_WINDOW_MS, ServiceWindows } from '../../src/sandbox/service-window.js';
import { ThroughputLimiter } from '../../src/sandbox/throughput-limiter.js';
import { FIXTURE_TEMPLATES, orderUpdate } from './sandbox-fixtures.js';

/** Throughput, pair and service-window rules, and how a send combines them (no server). */
function acceptAll(limiter: ThroughputLimiter, id: string, times: number[]): boolean[] {
  return times.map((t) => {
    const fits = limiter.fits(id, t);
    if (fits) limiter.record(id, t);
    return fits;
  });
}

describe('ThroughputLimiter (sliding 1000 ms log)', () => {
  it('allows N in a window and refuses the N+1th until the oldest leaves the window', () => {
    const limiter = new ThroughputLimiter(3);
    expect(acceptAll(limiter, 'p', [0, 100, 200, 300, 999])).toEqual([true, true, true, false, false]);
    expect(acceptAll(limiter, 'p', [1000, 1001, 1099, 1100, 1200])).toEqual([true, false, false, true, true]);
  });

  it('does not reset at a second boundary the way a fixed window would', () => {
    const limiter = new ThroughputLimiter(2);
    expect(acceptAll(limiter, 'p', [900, 950, 1001, 1050])).toEqual([true, true, false, false]);
  });

  it('keeps phone numbers apart and treats 0 as unlimited', () => {
    const limiter = new ThroughputLimiter(1);
    expect(acceptAll(limiter, 'a', [0, 1])).toEqual([true, false]);
    expect(acceptAll(limiter, 'b', [1])).toEqual([true]);
    const unlimited = new ThroughputLimiter(0);
    expect(
      acceptAll(
        unlimited,
        'a',
        Array.from({ length: 1000 }, () => 5),
      ).every(Boolean),
    ).toBe(true);
  });
});

describe('PairLimiter (a burst borrowed from future quota)', () => {
  it('allows a burst, then nothing until the burst is paid for at one per refill period', () => {
    const limiter = new PairLimiter({ burst: 3, refillMs: 6000 });
    const take = (t: number) => limiter.tryTake('p', '447700900123', t);
    expect([take(0), take(1), take(2), take(3)]).toEqual([true, true, true, false]);
    expect(take(6003)).toBe(false);
    expect(take(17_999)).toBe(false);
    expect(take(18_000)).toBe(true);
  });

  it('keeps recipients and phone numbers apart', () => {
    const limiter = new PairLimiter({ burst: 1, refillMs: 6000 });
    expect(limiter.tryTake('p', '1', 0)).toBe(true);
    expect(limiter.tryTake('p', '1', 0)).toBe(false);
    expect(limiter.tryTake('p', '2', 0)).toBe(true);
    expect(limiter.tryTake('q', '1', 0)).toBe(true);
  });
});

describe('ServiceWindows', () => {
  it('is open for 24 h after an inbound message, keyed by digits', () => {
    const windows = new ServiceWindows();
    windows.open('+44 7700 900123', 1000);
    expect(windows.isOpen('447700900123', 1000)).toBe(true);
    expect(windows.isOpen('447700900123', 1000 + SERVICE_WINDOW_MS - 1)).toBe(true);
    expect(windows.isOpen('447700900123', 1000 + SERVICE_WINDOW_MS)).toBe(false);
    expect(windows.isOpen('447700900999', 1000)).toBe(false);
    expect(() => windows.open('not a number', 0)).toThrow(RangeError);
  });
});

describe('AcceptedLog busiest second', () => {
  const message = (receivedAt: number): AcceptedMessage => ({
    wamid: `wamid.${receivedAt}`,
    phoneNumberId: 'p',
    to: '1',
    waId: '1',
    receivedAt,
    body: {},
  });

  it('is the most messages in any 1000 ms window', () => {
    const log = new AcceptedLog(() => undefined);
    for (const t of [0, 10, 990, 1500, 1600, 1700, 1989, 2600]) log.record(message(t));
    // 990, 1500, 1600, 1700, 1989 fall within 1000 ms of each other.
    expect(log.busiestSecond).toBe(5);
    expect(log.all).toHaveLength(8);
  });

  it('notifies listeners, survives a failing one, and stops after unsubscribe', () => {
    const errors: unknown[] = [];
    const log = new AcceptedLog((e) => errors.push(e));
    const seen: string[] = [];
    log.subscribe(() => {
      throw new Error('boom');
    });
    const off = log.subscribe((m) => seen.push(m.wamid));
    log.record(message(1));
    off();
    log.record(message(2));
    expect(seen).toEqual(['wamid.1']);
    expect(errors).toHaveLength(2);
  });
});

describe('SandboxRuntime.send', () => {
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
    });
    return { rt, advance: (ms: number) => (now += ms) };
  }
  const to = (n: number) => `+4477009${String(n).padStart(5, '0')}`;

  it("answers Meta's success shape and records the message", () => {
    const { rt } = runtime();
    const reply = rt.send('123', orderUpdate());
    expect(reply.status).toBe(200);
    if ('error' in reply.body) throw new Error(reply.body.error.message);
    expect(reply.body.contacts).toEqual([{ input: '+44 7700 900123', wa_id: '447700900123' }]);
    expect(reply.body.messages[0].id).toMatch(/^wamid\.[A-Za-z0-9+/]+={0,2}$/);
    expect(reply.body.messages[0].message_status).toBe('accepted');
    expect(rt.log.all[0]).toMatchObject({ phoneNumberId: '123', waId: '447700900123', receivedAt: 1_000_000 });
  });

  it('refuses the N+1th send in a second with 130429 and accepts again a second later', () => {
    const { rt, advance } = runtime({ perSecond: 5 });
    const statuses = Array.from({ length: 7 }, (_, i) => rt.send('123', orderUpdate({ to: to(i) })));
    expect(statuses.map((r) => ('error' in r.body ? r.body.error.code : r.status))).toEqual([200, 200, 200, 200, 200, 130429, 130429]);
    advance(1000);
    expect(rt.send('123', orderUpdate({ to: to(9) })).status).toBe(200);
    expect(rt.stats()).toEqual({
      accepted: 6,
      rejectedByCode: { '130429': 2 },
      busiestSecond: 5,
      // send() alone is not a request: the server counts those in admitRequest().
      requests: 0,
      busiestRequestSecond: 0,
      duplicates: 0,
      failedByCode: {},
      mediaUploads: {},
    });
  });

  it('refuses a pair beyond its burst with 131056 without using throughput quota', () => {
    const { rt } = runtime({ perSecond: 3, burst: 1 });
    expect(rt.send('123', orderUpdate()).status).toBe(200);
    const second = rt.send('123', orderUpdate());
    expect(second.status).toBe(400);
    expect('error' in second.body && second.body.error.code).toBe(131056);
    expect(rt.send('123', orderUpdate({ to: to(1) })).status).toBe(200);
    expect(rt.send('123', orderUpdate({ to: to(2) })).status).toBe(200);
    expect(rt.stats().accepted).toBe(3);
  });

  it('gives every accepted message a distinct wamid', () => {
    const { rt } = runtime({ perSecond: 0 });
    for (let i = 0; i < 500; i++) rt.send('123', orderUpdate({ to: to(i) }));
    expect(new Set(rt.log.all.map((m) => m.wamid)).size).toBe(500);
  });

  it('reset forgets messages, counters and limiter state, but not the media uploads made per number', () => {
    const { rt, advance } = runtime({ perSecond: 1 });
    rt.admitRequest('123');
    rt.send('123', orderUpdate());
    advance(1000);
    rt.admitRequest('123');
    rt.send('123', orderUpdate());
    rt.send('123', orderUpdate({ to: to(1) }));
    rt.media.add('123', 'image/jpeg', Buffer.from('banner'));
    rt.media.add('123', 'image/jpeg', Buffer.from('banner'));
    rt.media.add('456', 'application/pdf', Buffer.from('menu'));
    // Guard: there was something to forget.
    expect(rt.stats()).toMatchObject({
      accepted: 2,
      requests: 2,
      duplicates: 1,
      rejectedByCode: { '130429': 1 },
      mediaUploads: { '123': 2, '456': 1 },
    });
    rt.reset();
    expect(rt.stats()).toEqual({
      accepted: 0,
      rejectedByCode: {},
      busiestSecond: 0,
      requests: 0,
      busiestRequestSecond: 0,
      duplicates: 0,
      failedByCode: {},
      mediaUploads: { '123': 2, '456': 1 },
    });
    expect(rt.send('123', orderUpdate()).status).toBe(200);
  });
});
