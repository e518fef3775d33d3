import type { SendResult } from '../../cloud-api/cloud-api-client.js';
import type { OutboundMessage } from '../../cloud-api/outbound-message.js';
import type { RequestWrite } from '../../cloud-api/post-exchange.js';
import type { RowStatus } from '../campaign.js';
import type { RequestSlots } from './request-slots.js';

/** Anything that can send a message; CloudApiClient is the real one. */
export interface MessageSender {
  /** `onWritten`: called once the request is written to its socket, with when (see Admission.left). */
  send(phoneNumberId: string, message: OutboundMessage, onWritten?: (write: RequestWrite) => void): Promise<SendResult>;
}

/** What the queue adapter must do with the job after one pass. */
export type SendOutcome =
  /** The job is finished: the row has an answer, was parked by a pause, or belongs to a newer job. */
  | { kind: 'done'; status: RowStatus | 'parked' | 'stale' }
  | { kind: 'retry'; error: Error }
  | { kind: 'throttle-number'; ms: number }
  | { kind: 'delay-recipient'; ms: number }
  /** The worker is shutting down before this job claimed its row: put it back, untouched. */
  | { kind: 'release' };

export interface AttemptContext {
  /** No retry is left after this attempt: a retryable failure becomes final. */
  isLastAttempt: boolean;
  /** How many times this job was already put back for the pair rate limit. */
  pairDelays: number;
  /** The worker's places for rows between their claim and their answer (SEND_CONCURRENCY); absent: unbounded. */
  requests?: RequestSlots | undefined;
  /**
   * Whether this worker still holds the job (its BullMQ lock, extended by the asking); absent: it does. Asked only
   * for a row whose request could not leave within CLAIM_LIFETIME_MS of its claim.
   */
  jobStillHeld?: (() => Promise<boolean>) | undefined;
}
