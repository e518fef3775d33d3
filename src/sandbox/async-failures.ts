import { titleOf } from './graph-error.js';

/**
 * Failures Meta reports only by webhook (reference §2.2, §2.3 Delivery "async"): the send is
 * answered 200 with a wamid and the code arrives later in a `failed` status. The sandbox
 * must never answer these as a synchronous 400, or a client's webhook path goes untested
 * and its send path learns an answer Meta never gives.
 */
export const ASYNC_FAILURE_CODES: ReadonlySet<number> = new Set([131026, 131047, 131049, 131050]);

export function isAsyncFailureCode(code: number): boolean {
  return ASYNC_FAILURE_CODES.has(code);
}

export const REENGAGEMENT_DETAILS =
  'Message failed to send because more than 24 hours have passed since the customer last replied to this number.';

/** `error_data.details` as Meta words them for each async code (paraphrased where unknown). */
const DETAILS: Readonly<Record<number, string>> = {
  131026: 'Message Undeliverable.',
  131047: REENGAGEMENT_DETAILS,
  131049: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.',
  131050: 'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
  132015: 'The message was held for quality assessment and dropped: the template is paused because of low quality.',
};

const HREF = '/documentation/business-messaging/whatsapp/support/error-codes';

/** Why an accepted message will be reported `failed`, and where that came from (for logs and tests). */
export interface AsyncFailure {
  code: number;
  details: string;
  /** window (131047), recipientErrors, optedOut, usMarketingPaused (131049), failureShare or held (132015: a held send dropped). */
  cause: 'window' | 'recipientErrors' | 'optedOut' | 'usMarketingPaused' | 'failureShare' | 'held';
}

export function asyncFailure(code: number, cause: AsyncFailure['cause']): AsyncFailure {
  return { code, details: DETAILS[code] ?? `Simulated fault: error ${code} (${cause}).`, cause };
}

/** The `errors[]` entry of a `failed` status (reference §2.2): title and message are the same. */
export interface WebhookErrorObject {
  code: number;
  title: string;
  message: string;
  error_data: { details: string };
  href: string;
}

export function webhookError(failure: Pick<AsyncFailure, 'code' | 'details'>): WebhookErrorObject {
  const title = titleOf(failure.code) ?? 'Message failed to send';
  return { code: failure.code, title, message: title, error_data: { details: failure.details }, href: HREF };
}
