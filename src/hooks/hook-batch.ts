import { randomBytes } from 'node:crypto';
import { signatureOf } from '../outbound/signed-post.js';
import { userAgent } from '../cloud-api/user-agent.js';

/** The most events one POST carries. */
export const BATCH_MAX_EVENTS = 100;
/** How long the oldest waiting event may wait for others to join its batch. */
export const BATCH_MAX_WAIT_MS = 1000;

/** One POST to a hook: the exact bytes to send and the headers that go with them. */
export interface HookBatchRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * A batch as the receiver gets it: `{"hook","sent_at","events"}`, signed with the hook's secret
 * (`X-Campaign-Signature: sha256=<hex HMAC-SHA256 of the raw body>`), with the same moment as
 * `sent_at` in `X-Campaign-Timestamp` (unix seconds). The time is inside the signed bytes, so a
 * receiver that refuses a `sent_at` older than 5 minutes refuses a replayed batch (docs/events.md).
 */
export function hookBatchRequest(hook: string, events: readonly object[], secret: string, now: number): HookBatchRequest {
  const seconds = Math.floor(now / 1000);
  const body = JSON.stringify({ hook, sent_at: new Date(seconds * 1000).toISOString(), events });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': userAgent(),
      'x-campaign-signature': signatureOf(body, secret),
      'x-campaign-timestamp': String(seconds),
      'x-campaign-hook': hook,
    },
  };
}

/** `hooks test NAME`'s one event: `hook.test`, so a receiver can tell it from the campaigns' events. */
export function hookTestEvent(now: number): { id: string; type: 'hook.test'; occurred_at: string } {
  return { id: `evt_test_${randomBytes(8).toString('hex')}`, type: 'hook.test', occurred_at: new Date(now).toISOString() };
}

/**
 * Whether the waiting events make a batch now: a full one, or the oldest has waited
 * BATCH_MAX_WAIT_MS (counted from the earlier of its event time and its queueing). Otherwise,
 * `dueInMs` says when the oldest will have waited that long.
 */
export function batchDue(
  waiting: readonly { queuedAt: number; occurredAt?: number | undefined }[],
  now: number,
): { due: true } | { due: false; dueInMs: number } {
  const oldest = waiting[0];
  if (oldest === undefined) return { due: false, dueInMs: BATCH_MAX_WAIT_MS };
  if (waiting.length >= BATCH_MAX_EVENTS) return { due: true };
  const since = Math.min(oldest.queuedAt, oldest.occurredAt ?? oldest.queuedAt);
  const waited = now - since;
  return waited >= BATCH_MAX_WAIT_MS ? { due: true } : { due: false, dueInMs: BATCH_MAX_WAIT_MS - waited };
}
