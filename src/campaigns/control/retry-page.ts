/**
 * What one page of `markForRetry` did. Rows that failed with 131049 (Meta's marketing cap) are
 * held back until MARKETING_CAP_WAIT_MS after they failed (src/campaigns/marketing-cap-wait.ts).
 */
export interface RetryPage {
  requeued: number;
  /** Chosen, but recorded without their values (by a build before 0.1.0): left as they are. */
  noPayload: number;
  /** Failed with 131049 less than the wait ago: not chosen yet. */
  held: number;
  /** The earliest time (ms) one of those may be retried; 0 when none is held. */
  heldUntil: number;
  /** Failed with 131049 to a US number in a MARKETING campaign without `--allow-us-marketing`: left failed. */
  usMarketing: number;
  /** Failed with 131050, or their recipient is opted out now (a campaign opt-outs apply to): never sent again. */
  optedOut: number;
  /** Failed with 130472 (the user is in Meta's experiment: a resend gets the same error) and the code was not named: left failed. */
  experiment: number;
}
