import { wordingOf } from './failure-wording.js';
import { titleOf } from './graph-error.js';

export { REENGAGEMENT_DETAILS } from './failure-wording.js';

/**
 * Failures Meta reports only by webhook (reference §2.2, §2.3 Delivery "async"): the send is
 * answered 200 with a wamid and the code arrives later in a `failed` status. The sandbox
 * must never answer these as a synchronous 400, or a client's webhook path goes untested
 * and its send path learns an answer Meta never gives. 130472 (the user is in one of Meta's
 * experiments) and 131053 (the media could not be fetched or uploaded) are such failures:
 * reference cloud-api-2026.md "Template kinds…", and Meta's error-codes page, which points to
 * the webhook "triggered when this message fails to send" for 131053's details.
 */
export const ASYNC_FAILURE_CODES: ReadonlySet<number> = new Set([131026, 131047, 131049, 131050, 130472, 131053]);

export function isAsyncFailureCode(code: number): boolean {
  return ASYNC_FAILURE_CODES.has(code);
}

const HREF = '/documentation/business-messaging/whatsapp/support/error-codes';

/** Why an accepted message will be reported `failed`, and where that came from (for logs and tests). */
export interface AsyncFailure {
  code: number;
  details: string;
  /**
   * window (131047), recipientErrors, failedStatus, optedOut, usMarketingPaused (131049),
   * failureShare, held (132015: a held send dropped) or unknownMedia (131053: a media ID naming no upload).
   */
  cause: 'window' | 'recipientErrors' | 'failedStatus' | 'optedOut' | 'usMarketingPaused' | 'failureShare' | 'held' | 'unknownMedia';
}

export function asyncFailure(code: number, cause: AsyncFailure['cause']): AsyncFailure {
  return { code, details: wordingOf(code)?.details ?? `Simulated fault: error ${code} (${cause}).`, cause };
}

/**
 * The error object of a `failed` status and of a change's `value.errors` (reference §2.2;
 * Meta's webhooks/reference/messages/errors page): title and message are the same.
 */
export interface WebhookErrorObject {
  code: number;
  title: string;
  message: string;
  error_data: { details: string };
  href: string;
}

export function webhookError(failure: Pick<AsyncFailure, 'code' | 'details'> & { title?: string }): WebhookErrorObject {
  const title = failure.title ?? titleOf(failure.code) ?? wordingOf(failure.code)?.title ?? 'Message failed to send';
  return { code: failure.code, title, message: title, error_data: { details: failure.details }, href: HREF };
}
