import { numberScope } from '../key-scope.js';

/**
 * Where outbound events live. The ledger's scripts append to their number's stream (in the
 * number's slot, in the step that makes the change: src/redis/lua/includes/events.lua); `serve`
 * moves them on to each hook's outbox (src/redis/events/event-fanout.ts).
 */
export function eventStreamKey(prefix: string, phoneNumberId: string): string {
  return `${numberScope(prefix, phoneNumberId)}:events`;
}

/** The outbound hooks' registry: name → the hook as JSON (a plain key, read on its own). */
export function hooksRegistryKey(prefix: string): string {
  return `${prefix}:hooks`;
}
