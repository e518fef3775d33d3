/**
 * BullMQ's limiter for a rate of N messages per second. BullMQ releases each window's quota
 * as a burst, so a one-second window would send 80 messages in a few milliseconds and
 * an API counting a sliding second sees bursts above 80 (DESIGN.md measured 130–158). Short
 * windows keep every sliding second at or under the rate: the smallest window of at least
 * 25 ms that holds a whole number of messages.
 */
export function limiterFor(messagesPerSecond: number): { max: number; duration: number } {
  for (let duration = 25; duration <= 1000; duration++) {
    const max = (messagesPerSecond * duration) / 1000;
    if (Number.isInteger(max) && max >= 1) return { max, duration };
  }
  return { max: messagesPerSecond, duration: 1000 };
}
