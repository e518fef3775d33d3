/**
 * What went wrong with one send, as the operator's log counts it. The send path reports each
 * one; SendTroubleLog (src/logging/send-trouble-log.ts) turns them into a few lines at the
 * default level instead of one per row.
 */
export type SendTrouble =
  /** Meta refused the send for the number's throughput: every send from the number waits `pauseMs`. */
  | { kind: 'throttled'; campaignId: string; phoneNumberId: string; code: string; pauseMs: number }
  /** This recipient only waits (pair rate limit); no attempt used. */
  | { kind: 'delayed'; campaignId: string; phoneNumberId: string; code: string }
  /** The send is tried again later; an attempt used. */
  | { kind: 'retried'; campaignId: string; phoneNumberId: string; code: string }
  /** The row's final answer is `failed` with this code. */
  | { kind: 'failed'; campaignId: string; phoneNumberId: string; code: string }
  /** The row may have been sent (no answer, or an answer we could not read): recorded in doubt. */
  | { kind: 'unknown'; campaignId: string; phoneNumberId: string; code: string };

export type SendTroubleKind = SendTrouble['kind'];

/** Told every trouble of a send; absent = not reported. */
export interface SendTroubleObserver {
  record(trouble: SendTrouble): void;
}
