import type { RequestWrite } from '../../cloud-api/post-exchange.js';

/**
 * Spaces a phone number's sends evenly at its rate, across all of its workers. Shared state
 * lives in Redis (src/redis/pacer/redis-send-pacer.ts implements it); the send processor waits on
 * it before each request.
 */
export interface SendPacer {
  /**
   * Reserves this send's evenly spaced slot and waits until `leadMs` before it; answers the ms
   * still left until the slot then (undefined: none), for the caller's own last wait.
   */
  reserveSlot(leadMs?: number): Promise<number | undefined>;
  /**
   * The last gate before the request: never more than the rate in any second. `slotAt`
   * (performance.now()'s clock): the slot reserveSlot answered, asked for ahead of it; this
   * resolves at the slot, or later if the ceiling holds the send back.
   */
  admit(slotAt?: number): Promise<Admission>;
}

/** One admitted send. */
export interface Admission {
  /**
   * Call once the request is written to its socket, with when. A send that leaves well after it
   * was admitted (an event-loop stall, a wait for a connection) has its stamp moved to within a
   * few ms of when it left, so the sends admitted after it keep the ceiling at the receiver. One
   * whose write was stretched (a pause between its start and its end) is stamped at its end.
   */
  left(write: RequestWrite): void;
}
