import { E164_FORM } from '../../phone/e164.js';

/**
 * Forms the API's routes check in their own code (for a message of their own), stated as JSON
 * Schema patterns for the OpenAPI document. A unit test holds each to the check it describes.
 */
export const API_FORMATS = {
  /** parseRetryCodes: Meta's numeric codes, or ours as the report's error_code shows them. */
  retryCode: '^(\\d+|HTTP_\\d{3}|TRANSPORT_[A-Z_]+|WORKER_GAVE_UP|JOB_PAYLOAD_INVALID)$',
  /** toE164: a recipient in E.164, as the answers give it (the number is also checked against its country's plan). */
  e164: E164_FORM.source,
} as const;
