import { asyncFailure, isAsyncFailureCode, type AsyncFailure } from './async-failures.js';
import { httpStatusOf, type GraphErrorSpec } from './graph-error.js';
import { PAIR_LIMIT_ERROR, THROUGHPUT_ERROR } from './limit-errors.js';

/**
 * Forced per-recipient errors (FaultSettings.recipientErrors): the next N sends to one user
 * fail with a chosen code, so a test can drive one row through "retry, then succeed" or
 * "fail for good" while the rest of the campaign flows. A code Meta answers synchronously is
 * refused with a 400; a code Meta reports only by webhook (async-failures.ts) is accepted and
 * reported `failed` later, as Meta does. Counters live here, not in the settings, so
 * GET /_sandbox/faults still shows what was asked for.
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
  [THROUGHPUT_ERROR.code]: THROUGHPUT_ERROR.details ?? '',
  [PAIR_LIMIT_ERROR.code]: PAIR_LIMIT_ERROR.details ?? '',
};

/**
 * Meta sends these synchronously as 400s (reference §2.3), whatever the code's usual status,
 * except the account-level refusals Meta answers 403 (368, 131031: graph-error.ts).
 */
const FORCED_STATUS = 400;
const FORBIDDEN = 403;

export function forcedError(code: number): GraphErrorSpec {
  const details = KNOWN_DETAILS[code] ?? `Simulated fault: error ${code} forced for this recipient (recipientErrors).`;
  return { code, details, status: httpStatusOf(code) === FORBIDDEN ? FORBIDDEN : FORCED_STATUS };
}

type ForcedCause = Extract<AsyncFailure['cause'], 'recipientErrors' | 'failedStatus'>;

export class RecipientErrors {
  private readonly remaining = new Map<string, { code: number; async: boolean; left: number; cause: ForcedCause }>();

  /**
   * Replaces every counter: each entry starts again at its full `times`. `failedStatus`
   * entries (FaultSettings.failedStatus) always take the webhook path, whatever their code.
   */
  replace(entries: readonly RecipientError[] = [], failedStatus: readonly RecipientError[] = []): void {
    this.remaining.clear();
    for (const { waId, code, times } of entries) {
      this.remaining.set(waId, { code, async: isAsyncFailureCode(code), left: times, cause: 'recipientErrors' });
    }
    for (const { waId, code, times } of failedStatus) {
      this.remaining.set(waId, { code, async: true, left: times, cause: 'failedStatus' });
    }
  }

  /**
   * Uses up one forced synchronous error for this recipient, if its entry has one left.
   * Called only for sends that passed validation, so a malformed request does not eat one;
   * an entry with an async code is left for takeAsync.
   */
  takeSync(waId: string): GraphErrorSpec | undefined {
    const entry = this.take(waId, false);
    return entry === undefined ? undefined : forcedError(entry.code);
  }

  /**
   * Uses up one forced async failure: called once the send is accepted (past the limits),
   * so a send the limits refused does not eat one either.
   */
  takeAsync(waId: string): AsyncFailure | undefined {
    const entry = this.take(waId, true);
    return entry === undefined ? undefined : asyncFailure(entry.code, entry.cause);
  }

  private take(waId: string, async: boolean): { code: number; cause: ForcedCause } | undefined {
    const entry = this.remaining.get(waId);
    if (entry === undefined || entry.async !== async) return undefined;
    entry.left -= 1;
    // Spent entries are dropped so the common case (no entry) stays one failed map lookup.
    if (entry.left <= 0) this.remaining.delete(waId);
    return entry;
  }
}
