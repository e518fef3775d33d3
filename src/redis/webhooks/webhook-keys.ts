import { sharedScope } from '../key-scope.js';

/** The webhook service's keys (all in one slot: see below). */
export interface WebhookKeys {
  /** The stream every signed POST is appended to before the 200 (fields `body`: the raw bytes, `at`: ms received, `sig`: its signature). */
  inbox: string;
  /** Hash: the signature (hex) of each body the inbox holds unconsumed → its entry ID; an exact replay of one is dropped. */
  held: string;
  /** Hash: what the intake did not store, `replays` (held already) and `full` (WEBHOOK_INBOX_MAX reached) → how many. */
  intake: string;
  /**
   * The stream of bodies to forward to RELAY_WEBHOOKS' targets (fields `body`, `at`, `type`: Meta's content-type, `n`: its
   * ordinal), appended in the intake's step while relay is on; trimmed once every target is past an entry (src/relay).
   */
  relay: string;
  /** Statuses whose message no row has yet (→ ms first seen). */
  parked: string;
  /** Counters of what the consumers did. */
  stats: string;
  /** The newest account-level errors Meta reported (a list of JSON, newest first). */
  accountErrors: string;
}

export function webhookKeys(prefix: string): WebhookKeys {
  // In the shared scope, with the metrics: the consumer's MULTI (ack, stats, metrics) and the intake's script are one slot each.
  const base = `${sharedScope(prefix)}:webhooks`;
  return {
    inbox: `${base}:inbox`,
    held: `${base}:inbox-held`,
    intake: `${base}:intake`,
    relay: `${base}:relay`,
    parked: `${base}:parked`,
    stats: `${base}:stats`,
    accountErrors: `${base}:account-errors`,
  };
}
