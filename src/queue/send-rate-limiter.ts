/**
 * BullMQ's limiter for a phone number: at most N jobs per second leave the queue, for every
 * worker of that number. It does not shape the sends: it releases each window's quota as a
 * burst (DESIGN.md: a 1 s window gave sliding seconds of 130–158), and short windows lose a
 * Redis round trip each (measured here: 25 ms windows fell to 75/s, 100 ms windows to 78/s
 * and still reached 89 in a sliding second). So the window is one second, which keeps the
 * average at the rate, and the SendPacer spaces the sends inside it.
 */
export function limiterFor(messagesPerSecond: number): { max: number; duration: number } {
  return { max: messagesPerSecond, duration: 1000 };
}
