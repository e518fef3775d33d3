import { setTimeout as delay } from 'node:timers/promises';

/**
 * The tests' one way to wait: on an event with a deadline (`within`), or, for a state nothing
 * announces, by polling it (`waitFor`). No test sleeps for time to pass.
 *
 * Why not vitest's expect.poll: it only asserts, while most waits here need the value they
 * waited for (the status that was reached, the match printed); it cannot run in a harness
 * outside a test; and its timeout message names the matcher, not the state the test waited for.
 * `waitFor` returns the value, and its timeout names `what` and the last value seen.
 */

export interface WaitForOptions {
  /** What is awaited, for the timeout message ("campaign c1 completed"). */
  what: string;
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Between two probes (default 50 ms). */
  intervalMs?: number;
  /** More to say on a timeout than the last value (e.g. a process's output). */
  explain?: () => string | Promise<string>;
}

/** A probe's answer meaning "not yet" when no `until` is given. */
type NotYet = undefined | null | false;

const arrived = (value: unknown): boolean => value !== undefined && value !== null && value !== false;

/**
 * Probes until the value is the one awaited and returns it: with `until`, a value it accepts
 * (the probe is then a plain getter, and a timeout shows what it last got); without, anything
 * but undefined, null or false. An error the probe throws ends the wait at once (a process
 * that died will not recover).
 */
export function waitFor<T>(probe: () => T | Promise<T>, options: WaitForOptions & { until: (value: T) => boolean }): Promise<T>;
export function waitFor<T>(probe: () => T | NotYet | Promise<T | NotYet>, options: WaitForOptions): Promise<T>;
export async function waitFor<T>(
  probe: () => T | NotYet | Promise<T | NotYet>,
  options: WaitForOptions & { until?: (value: T) => boolean },
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 50;
  let last: unknown;
  let stop = false;
  const loop = (async (): Promise<T> => {
    for (;;) {
      const value = await probe();
      if (options.until === undefined ? arrived(value) : options.until(value as T)) return value as T;
      last = value;
      await delay(intervalMs);
      // Abandoned (timed out): probe no more, the test may be closing what the probe reads.
      if (stop) throw new Error('stopped');
    }
  })();
  try {
    // The deadline is a race, not a check between probes: a probe that hangs still times out.
    return await within(timeoutMs, loop, async () => {
      const more = options.explain === undefined ? '' : `; ${await options.explain()}`;
      return `${options.what} (last probe: ${shown(last)})${more}`;
    });
  } finally {
    stop = true;
    loop.catch(() => undefined);
  }
}

/** Resolves `promise`, or rejects after `ms` with what `explain` says about the state then. */
export async function within<T>(ms: number, promise: Promise<T>, explain: () => string | Promise<string>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      Promise.resolve()
        .then(explain)
        .then(
          (text) => reject(new Error(`not within ${ms} ms: ${text}`)),
          (error: unknown) => reject(new Error(`not within ${ms} ms (and explaining failed: ${String(error)})`)),
        );
    }, ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A probe's value for an error message: JSON, cut at 500 characters. */
function shown(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value);
    return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return `a ${typeof value} JSON cannot show`;
  }
}
