/*
 * The outbound hooks' keys. The registry (`<prefix>:hooks`, src/redis/events/event-keys.ts) is
 * a plain key, read on its own. Each hook's own keys share one hash tag, `{hook:<name>}`, so
 * its scripts (queue, acknowledge, bury, redeliver) and its removal each touch one slot.
 */

export interface HookKeys {
  /** Its counters (queued, delivered, retried, dead, lag): also the mark that the hook exists. */
  figures: string;
  /** The events waiting for delivery, oldest first (fields e: the event as JSON, q: ms queued). */
  outbox: string;
  /** The events given up on (fields e, at: ms, why: the last answer). */
  dead: string;
  /** The `serve` replica that delivers it now. */
  lease: string;
}

export function hookKeys(prefix: string, name: string): HookKeys {
  const scope = `${prefix}:{hook:${name}}`;
  return { figures: `${scope}:figures`, outbox: `${scope}:outbox`, dead: `${scope}:dead`, lease: `${scope}:lease` };
}

/** The `serve` replica that moves the numbers' events to the hooks' outboxes now. */
export function fanoutLeaseKey(prefix: string): string {
  return `${prefix}:hooks:fanout-lease`;
}
