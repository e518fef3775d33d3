/**
 * How Meta words the error object of a webhook (a `failed` status's `errors[]`, or a change's
 * `value.errors`): per code, the `error_data.details` and, where graph-error.ts has no title
 * for the code (it knows the codes the sandbox also answers synchronously), the title. Taken
 * from Meta's error-codes page
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes);
 * where the sandbox's wording is its own, the entry says so.
 *
 * The codes are those of one message failing to be sent or delivered: Meta says its errors
 * come back "synchronously as a Graph API response, asynchronously via Webhook, or sometimes
 * through both", so each of them can arrive in a `failed` status (the failedStatus fault).
 */
export interface Wording {
  details: string;
  /** Only where graph-error.ts does not title the code. */
  title?: string;
}

export const REENGAGEMENT_DETAILS =
  'Message failed to send because more than 24 hours have passed since the customer last replied to this number.';

const WORDING: Readonly<Record<number, Wording>> = {
  // The details of Meta's own `value.errors` webhook example (webhooks/reference/messages/errors).
  130429: { details: 'Message failed to send because there were too many messages sent from this phone number in a short period of time' },
  130472: { details: 'Message was not sent as part of an experiment.' },
  131000: { details: 'Message failed to send due to an unknown error.' },
  131026: { details: 'Message Undeliverable.' },
  131042: { title: 'Business eligibility payment issue', details: 'There was an error related to your payment method.' },
  131045: { title: 'Incorrect certificate', details: 'Message failed to send due to a phone number registration error.' },
  131047: { details: REENGAGEMENT_DETAILS },
  131048: {
    details:
      'Message failed to send because there are restrictions on how many messages can be sent from this phone number. ' +
      'This may be because too many previous messages were blocked or flagged as spam.',
  },
  131049: { details: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.' },
  131050: {
    details:
      'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
  },
  131051: { details: 'Unsupported message type.' },
  131053: { title: 'Media upload error', details: 'Unable to upload the media used in the message.' },
  131056: {
    details: 'Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.',
  },
  132000: {
    details:
      'The number of variable parameter values included in the request did not match ' +
      'the number of variable parameters defined in the template.',
  },
  132001: { details: 'The template does not exist in the specified language or the template has not been approved.' },
  132005: { details: 'Translated text is too long.' },
  132007: { title: 'Template Format Character Policy Violated', details: 'Template content violates a WhatsApp policy.' },
  132012: { details: 'Variable parameter values formatted incorrectly.' },
  // Meta's pacing pages: a held message is dropped with 132015 (the sandbox's wording of them).
  132015: { details: 'The message was held for quality assessment and dropped: the template is paused because of low quality.' },
  132016: {
    details: 'Template has been paused too many times due to low quality and is now permanently disabled.',
  },
  132068: { title: 'Flow is blocked', details: 'Flow is in blocked state.' },
  132069: {
    title: 'Flow is throttled',
    details: 'Flow is in throttled state and 10 messages using this flow were already sent in the last hour.',
  },
};

/** Every code a `failed` status may carry (the failedStatus fault takes these). */
export const FAILED_STATUS_CODES: ReadonlySet<number> = new Set(Object.keys(WORDING).map(Number));

export function wordingOf(code: number): Wording | undefined {
  return WORDING[code];
}
