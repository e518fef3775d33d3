import type { StatusKind } from '../../src/campaigns/ledger.js';

/**
 * What Meta's status webhooks say of one sent row, derived from the first time each kind was
 * seen, so that any order and any duplicates give the same result (Meta guarantees neither,
 * reference §3.1): `read` implies `delivered` (a read can come without a delivered);
 * `failed` ends the row as failed with Meta's code, whatever else arrives; a status for a
 * row whose answer was lost (`unknown`), not yet recorded (`sending`) or that waits for a
 * retry after an attempt that did reach Meta (`queued`) proves it was accepted: it becomes
 * `sent`, and the retry finds it answered. The rule itself is src/redis/lua/apply-statuses.lua's;
 * this is the tests' statement of it: test/unit/delivery-state.test.ts checks it against every
 * shuffle, test/integration/webhook-statuses.test.ts checks the script against it.
 */

export interface DeliveryEvent {
  kind: StatusKind;
  /** Meta's timestamp (ms). */
  at: number;
  /** failed only: Meta's code and its detail. */
  code?: string;
  detail?: string;
}

export interface DeliveryState {
  status: 'queued' | 'sending' | 'unknown' | 'sent' | 'failed';
  deliveredAt?: number;
  readAt?: number;
  failedAt?: number;
  /** failed: the code and detail of the earliest failure seen. */
  code?: string;
  detail?: string;
}

const earlier = (a: number | undefined, b: number): number => (a === undefined || b < a ? b : a);

export function applyDeliveryEvent(state: DeliveryState, event: DeliveryEvent): DeliveryState {
  const next: DeliveryState = { ...state };
  if (next.status === 'queued' || next.status === 'sending' || next.status === 'unknown') next.status = 'sent';
  switch (event.kind) {
    case 'sent':
      break;
    case 'delivered':
      next.deliveredAt = earlier(next.deliveredAt, event.at);
      break;
    case 'read':
      next.readAt = earlier(next.readAt, event.at);
      next.deliveredAt = earlier(next.deliveredAt, event.at);
      break;
    case 'failed':
      // The earliest failure names the row (ties: the lower code), so duplicates and order do not matter.
      if (
        next.failedAt === undefined ||
        event.at < next.failedAt ||
        (event.at === next.failedAt && (event.code ?? '') < (next.code ?? ''))
      ) {
        next.failedAt = event.at;
        if (event.code !== undefined) next.code = event.code;
        if (event.detail !== undefined) next.detail = event.detail;
      }
      next.status = 'failed';
      break;
  }
  return next;
}
