import { CloudApiBadResponseError, CloudApiError, CloudApiTransportError } from '../cloud-api/cloud-api-errors.js';

/**
 * What the send path tells the metrics about each request to the Cloud API. The campaign
 * logic depends on this port only; RedisSendRecorder (src/redis/metrics/redis-send-recorder.ts)
 * is the real one.
 */
export interface SendObserver {
  /** One request and its answer: `result` as sendResultOf gives it, `seconds` from request to answer. */
  recordSend(phoneNumberId: string, result: string, seconds: number): void;
}

/** The `result` of a request Meta accepted. */
export const SEND_ACCEPTED = 'accepted';

/**
 * The `result` label of a failed request, the same code the ledger records for the row:
 * Meta's error code (`131026`), `HTTP_<status>` for an error without a Graph body,
 * `TRANSPORT_TIMEOUT` / `TRANSPORT_CONNECT` / `TRANSPORT_CONNECTION_LOST` when no answer
 * came, `CLOUD_API_BAD_RESPONSE` for a 200 we could not read.
 */
export function sendResultOf(error: unknown): string {
  if (error instanceof CloudApiError) return error.metaCode === undefined ? `HTTP_${error.httpStatus}` : String(error.metaCode);
  if (error instanceof CloudApiTransportError) return `TRANSPORT_${error.failure.toUpperCase().replace('-', '_')}`;
  if (error instanceof CloudApiBadResponseError) return error.code;
  return 'ERROR';
}
