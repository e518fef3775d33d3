import { describe, expect, it } from 'vitest';
import { AcceptedLog, type AcceptedMessage } from '../../src/sandbox/accepted-log.js';

const message = (i: number, receivedAt: number): AcceptedMessage => ({
  wamid: `w${i}`,
  phoneNumberId: '1',
  to: `+${i}`,
  waId: String(i),
  receivedAt,
  body: {},
});

describe('AcceptedLog with retain', () => {
  it('keeps between N and 2N of the newest messages, counts every one, and its busiest second still covers the dropped ones', () => {
    const log = new AcceptedLog(() => undefined, 100);
    // 1,000 messages, 10 per ms: the busiest second is all of them.
    for (let i = 0; i < 1000; i++) log.record(message(i, Math.floor(i / 10)));
    expect(log.count).toBe(1000);
    expect(log.busiestSecond).toBe(1000);
    // The sliding second spans everything, so nothing may be dropped yet.
    expect(log.all).toHaveLength(1000);
    // A second later the old ones leave the window and can go.
    for (let i = 1000; i < 1500; i++) log.record(message(i, 5000 + i * 10));
    expect(log.count).toBe(1500);
    expect(log.all.length).toBeGreaterThanOrEqual(100);
    expect(log.all.length).toBeLessThan(200);
    expect(log.all.at(-1)?.wamid).toBe('w1499');
    expect(log.busiestSecond).toBe(1000);
  });

  it('without retain keeps them all', () => {
    const log = new AcceptedLog(() => undefined);
    for (let i = 0; i < 500; i++) log.record(message(i, i * 10));
    expect(log.all).toHaveLength(500);
    expect(log.count).toBe(500);
  });
});
