/**
 * Meta's ecosystem limit (131049): a message sent again within 24 h only fails again, so
 * `campaign retry` holds such rows back until 24 h after they failed.
 */
export const RETRY_HOLD_131049_MS = 24 * 3_600_000;

/** What one page of `markForRetry` did. */
export interface RetryPage {
  requeued: number;
  /** Chosen, but recorded without their values (by a build before 0.1.0): left as they are. */
  noPayload: number;
  /** Failed with 131049 less than 24 h ago: not chosen yet. */
  held: number;
  /** The earliest time (ms) one of those may be retried; 0 when none is held. */
  heldUntil: number;
  /** Failed with 131049 to a US number in a MARKETING campaign without `--allow-us-marketing`: left failed. */
  usMarketing: number;
  /** Failed with 131050, or their recipient is opted out now (a campaign opt-outs apply to): never sent again. */
  optedOut: number;
}
