import { describe, expect, it } from 'vitest';
import { waitFor, within } from '../support/waiting.js';

describe('waitFor', () => {
  it('returns the first value that is not undefined, null or false', async () => {
    const answers = [undefined, null, false, 'ready'];
    expect(await waitFor(() => answers.shift(), { what: 'ready', intervalMs: 1 })).toBe('ready');
  });

  it('with until, returns the getter value it accepts', async () => {
    let n = 0;
    expect(await waitFor(() => ++n, { what: 'three', intervalMs: 1, until: (value) => value >= 3 })).toBe(3);
  });

  it('times out naming what it waited for and the last value it saw', async () => {
    let n = 0;
    await expect(
      waitFor(() => ({ n: ++n }), { what: 'n above 1000', timeoutMs: 30, intervalMs: 5, until: (v) => v.n > 1000 }),
    ).rejects.toThrow(/^not within 30 ms: n above 1000 \(last probe: \{"n":\d+\}\)$/);
  });

  it('adds what explain says, and times out a probe that hangs', async () => {
    const hangs = () => new Promise<string>(() => undefined);
    await expect(waitFor(hangs, { what: 'an answer', timeoutMs: 20, explain: () => 'the server is gone' })).rejects.toThrow(
      'not within 20 ms: an answer (last probe: undefined); the server is gone',
    );
  });

  it('ends at once when the probe throws', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('the process exited');
        },
        { what: 'never', timeoutMs: 10_000 },
      ),
    ).rejects.toThrow('the process exited');
  });
});

describe('within', () => {
  it('resolves with the promise, or rejects with the explanation at the deadline', async () => {
    expect(await within(1000, Promise.resolve(7), () => 'unused')).toBe(7);
    await expect(within(10, new Promise(() => undefined), () => 'still waiting')).rejects.toThrow('not within 10 ms: still waiting');
  });
});
