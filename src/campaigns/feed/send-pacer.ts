/**
 * Spaces a phone number's sends evenly at its rate, across all of its workers. Shared state
 * lives in Redis (src/redis/redis-send-pacer.ts implements it); the send processor waits on
 * it before each request.
 */
export interface SendPacer {
  /** Waits for this send's evenly spaced slot. */
  reserveSlot(): Promise<void>;
  /** The last gate before the request: never more than the rate in any second. */
  admit(): Promise<void>;
}
