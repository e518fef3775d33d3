import type { GraphErrorSpec } from './graph-error.js';

/**
 * Meta's two rate-limit refusals, worded once. The real limiters and the faults that imitate
 * them (throttle bursts, forced per-recipient errors) must answer with the same body, or a
 * client could tell a simulated throttle from a real one and the fault would test nothing.
 */
export const THROUGHPUT_ERROR: Readonly<GraphErrorSpec> = Object.freeze({
  code: 130429,
  details: 'Message failed to send because there were too many messages sent from this phone number ' + 'in a short period of time.',
});

export const PAIR_LIMIT_ERROR: Readonly<GraphErrorSpec> = Object.freeze({
  code: 131056,
  details: 'Too many messages were sent from this business number to the same recipient in a short time.',
});
