import { sharedScope } from '../key-scope.js';
import { webhookKeys } from '../webhooks/webhook-keys.js';

/**
 * The relay's keys. All in the shared slot with the webhook inbox: the intake appends to the
 * relay stream and counts it in one script, and each forwarding step (cursor, counters, dead
 * letter, lease check) is one script over these keys.
 */
export interface RelayKeys {
  /** The stream of accepted bodies to forward (src/redis/webhooks/webhook-keys.ts). */
  relay: string;
  /** Hash: target name → its cursor, `<entry ID> <ordinal>`: the last entry it is done with (forwarded or dead) and that entry's `n`. */
  cursors: string;
  /** Hash: `appended` (bodies put in the relay stream), `forwarded:<target>`, `retried:<target>`, `dead:<target>` → how many. */
  stats: string;
}

export function relayKeys(prefix: string): RelayKeys {
  const base = `${sharedScope(prefix)}:relay`;
  return { relay: webhookKeys(prefix).relay, cursors: `${base}:cursors`, stats: `${base}:stats` };
}

/** String: the `serve` replica that forwards to `target` now (its owner ID), expiring unless renewed. */
export function relayLeaseKey(prefix: string, target: string): string {
  return `${sharedScope(prefix)}:relay:lease:${target}`;
}

/** Stream: the bodies `target` never took within HOOK_RETRY_HOURS (fields of the relay entry, `entry`, `reason`, `dead_at`). */
export function relayDeadKey(prefix: string, target: string): string {
  return `${sharedScope(prefix)}:relay:dead:${target}`;
}
