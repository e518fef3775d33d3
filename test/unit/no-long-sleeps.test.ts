import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findLongSleeps, longSleepsUnder } from '../support/long-sleeps.js';

/**
 * The integration tests and their support wait on events, polled states or a moved clock
 * (test/support/waiting.ts, test-clock.ts, the sandbox's `clock`), never by sleeping more than
 * a second for time to pass. This keeps it so.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('no long sleeps in the integration tests', () => {
  it('test/integration and test/support sleep at most 1 s anywhere', async () => {
    expect(await longSleepsUnder(ROOT, ['test/integration', 'test/support'])).toEqual([]);
  });

  it('finds a sleep over 1 s, by literal or by constant, and names its line', () => {
    const source = [
      "import { setTimeout as sleep } from 'node:timers/promises';",
      'const QUIET_MS = 2_500;',
      'const STEP = 2 * QUIET_MS;',
      'await sleep(1500);',
      'await new Promise((resolve) => setTimeout(resolve, QUIET_MS));',
      'await new Promise((r) =>',
      '  setTimeout(r, STEP));',
      'await setTimeout(1_001);',
      'await pause(5 * 1000);',
    ].join('\n');
    expect(findLongSleeps(source).map(({ line, ms }) => [line, ms])).toEqual([
      [4, 1500],
      [5, 2500],
      [7, 5000],
      [8, 1001],
      [9, 5000],
    ]);
  });

  it('lets short sleeps, deadlines, run-time delays and methods named pause pass', () => {
    const source = [
      'await sleep(1000);',
      'await new Promise((resolve) => setTimeout(resolve, 50));',
      'const timer = setTimeout(() => reject(new Error(`timed out`)), 10_000);',
      'setTimeout(() => resolve(false), 10_000).unref();',
      'await new Promise((r) => setTimeout(r, everyMs));',
      "await ledger.pause('c1', 'operator');",
      'await controls.pause(5000);',
    ].join('\n');
    expect(findLongSleeps(source)).toEqual([]);
  });
});
