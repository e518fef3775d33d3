import type { LedgerClockSetting } from '../../src/redis/ledger/ledger-clock.js';

/**
 * The ledger's clock as a test moves it (LedgerOptions.clock): stopped at an instant, so
 * times come out exact, or running (Redis's TIME) with an offset. The ledger reads it at
 * each call, so `advance` and `set` take effect at once: no test waits for time to pass.
 */
export class TestClock implements LedgerClockSetting {
  offsetMs = 0;
  stoppedAt: number | undefined;

  private constructor(stoppedAt: number | undefined) {
    this.stoppedAt = stoppedAt;
  }

  /** A clock that stands at `at` (default: now) until moved. */
  static stopped(at = Date.now()): TestClock {
    return new TestClock(at);
  }

  /** Redis's clock, running, moved by `advance` and `set` (for what needs time to pass, BullMQ's delays). */
  static running(): TestClock {
    return new TestClock(undefined);
  }

  /** The ledger's time as this process sees it: exact when stopped; Redis runs on this host, so Date.now() when running. */
  now(): number {
    return this.stoppedAt ?? Date.now() + this.offsetMs;
  }

  /** Moves the clock `ms` ahead. */
  advance(ms: number): void {
    if (this.stoppedAt === undefined) this.offsetMs += ms;
    else this.stoppedAt += ms;
  }

  /** Puts the clock at `at` (ms), ahead or back. */
  set(at: number): void {
    this.advance(at - this.now());
  }
}
