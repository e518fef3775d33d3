import type { GraphErrorSpec } from './graph-error.js';
import { PAIR_LIMIT_ERROR, THROUGHPUT_ERROR } from './limit-errors.js';
import { REENGAGEMENT_DETAILS } from './message-validation.js';

/**
 * Forced per-recipient errors (FaultSettings.recipientErrors): the next N sends to one user
 * are refused with a chosen code, so a test can drive one row through "retry, then succeed"
 * or "fail for good" while the rest of the campaign flows. Counters live here, not in the
 * settings, so GET /_sandbox/faults still shows what was asked for.
 */
export interface RecipientError {
  waId: string;
  code: number;
  times: number;
}

/**
 * Where the sandbox answers a code for real, the forced answer uses the same details, so a
 * client cannot tell them apart; other codes get a plain note saying where they came from.
 */
const KNOWN_DETAILS: Readonly<Record<number, string>> = {
  [THROUGHPUT_ERROR.code]: THROUGHPUT_ERROR.details,
  [PAIR_LIMIT_ERROR.code]: PAIR_LIMIT_ERROR.details,
  131047: REENGAGEMENT_DETAILS,
};

/** Meta sends these synchronously as 400s (reference §2.3), whatever the code's usual status. */
const FORCED_STATUS = 400;

export function forcedError(code: number): GraphErrorSpec {
  const details = KNOWN_DETAILS[code] ?? `Simulated fault: error ${code} forced for this recipient (recipientErrors).`;
  return { code, details, status: FORCED_STATUS };
}

export class RecipientErrors {
  private readonly remaining = new Map<string, { code: number; left: number }>();

  /** Replaces every counter: each entry starts again at its full `times`. */
  replace(entries: readonly RecipientError[] = []): void {
    this.remaining.clear();
    for (const { waId, code, times } of entries) this.remaining.set(waId, { code, left: times });
  }

  /**
   * Uses up one forced error for this recipient, if any is left. Called only for sends that
   * passed validation, so a malformed request does not eat a forced error.
   */
  take(waId: string): GraphErrorSpec | undefined {
    const entry = this.remaining.get(waId);
    if (entry === undefined) return undefined;
    entry.left -= 1;
    // Spent entries are dropped so the common case (no entry) stays one failed map lookup.
    if (entry.left <= 0) this.remaining.delete(waId);
    return forcedError(entry.code);
  }
}
