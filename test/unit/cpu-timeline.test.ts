import { describe, expect, it } from 'vitest';
import { steadyPart } from '../../bench/support/cpu-timeline.js';

/**
 * Samples every 100 ms from t = 0 to 5,000 ms: the worker uses half a core, the machine one and a half;
 * the worker's main thread waits for a core a fifth of the time.
 */
const samples = Array.from({ length: 51 }, (_, i) => ({
  at: i * 100,
  seconds: { worker: i * 0.05, machine: i * 0.15 },
  waited: { worker: i * 0.02 },
}));

describe('steadyPart', () => {
  it('reads the rate and each process’s CPU a message between 1 s after the first arrival and 0.5 s before the last', () => {
    // 2,000 arrivals a second from t = 500 to 4,500 ms inclusive: the steady part is 1,500 to 4,000 ms.
    const arrivals = Array.from({ length: 8001 }, (_, i) => 500 + i * 0.5);
    const part = steadyPart(samples, arrivals);
    expect(part?.seconds).toBeCloseTo(2.5);
    expect(part?.messagesPerSecond).toBeCloseTo(2000);
    expect(part?.cores.worker).toBeCloseTo(0.5);
    expect(part?.cores.machine).toBeCloseTo(1.5);
    // Half a core over 2,000 messages a second: 250 µs a message.
    expect(part?.microsPerMessage.worker).toBeCloseTo(250);
    expect(part?.waiting.worker).toBeCloseTo(0.2);
  });

  it('leaves out the wait of a process whose run queue could not be read, and keeps its CPU', () => {
    const unread = samples.map((s) => ({ ...s, waited: { worker: undefined } }));
    const part = steadyPart(
      unread,
      Array.from({ length: 8001 }, (_, i) => 500 + i * 0.5),
    );
    expect(part?.waiting).toEqual({});
    expect(part?.cores.worker).toBeCloseTo(0.5);
  });

  it('has no steady part when the run leaves less than a second of it', () => {
    const arrivals = Array.from({ length: 2000 }, (_, i) => 500 + i);
    expect(steadyPart(samples, arrivals)).toBeUndefined();
  });

  it('has none when a process’s CPU could not be read', () => {
    const unread = samples.map((s) => ({ ...s, seconds: { ...s.seconds, worker: undefined } }));
    expect(
      steadyPart(
        unread,
        Array.from({ length: 8001 }, (_, i) => 500 + i * 0.5),
      ),
    ).toBeUndefined();
  });
});
