import { AppError } from '../errors/app-error.js';

/** The Cloud API answered with an error (a Graph error body, or at least an HTTP error status). */
export class CloudApiError extends AppError {
  readonly httpStatus: number;
  /** Meta's `error.code`: the field every decision branches on. Undefined when the body was not a Graph error. */
  readonly metaCode: number | undefined;
  readonly subcode: number | undefined;
  readonly details: string | undefined;
  readonly fbtraceId: string | undefined;

  constructor(fields: {
    httpStatus: number;
    metaCode?: number | undefined;
    subcode?: number | undefined;
    title?: string | undefined;
    details?: string | undefined;
    fbtraceId?: string | undefined;
  }) {
    const what = fields.metaCode === undefined ? `HTTP ${fields.httpStatus}` : `code ${fields.metaCode}`;
    const text = fields.details ?? fields.title ?? 'no error body';
    super('CLOUD_API_ERROR', `Cloud API rejected the message (${what}): ${text}`);
    this.httpStatus = fields.httpStatus;
    this.metaCode = fields.metaCode;
    this.subcode = fields.subcode;
    this.details = fields.details ?? fields.title;
    this.fbtraceId = fields.fbtraceId;
  }
}

export type TransportFailure = 'connect' | 'timeout' | 'connection-lost';

/** No answer came back: the request may or may not have reached Meta (see `requestMayHaveLeft`). */
export class CloudApiTransportError extends AppError {
  readonly failure: TransportFailure;
  /** False only when the connection was never made, so Meta cannot have seen the request. */
  readonly requestMayHaveLeft: boolean;

  constructor(failure: TransportFailure, cause: unknown) {
    super('CLOUD_API_TRANSPORT', `No answer from the Cloud API (${failure})`, { cause });
    this.failure = failure;
    this.requestMayHaveLeft = failure !== 'connect';
  }
}

/** 200 with a body that is not `MessageResponsePayload`: the send may have happened, we cannot tell its ID. */
export class CloudApiBadResponseError extends AppError {
  readonly httpStatus: number;

  constructor(httpStatus: number, problem: string) {
    super('CLOUD_API_BAD_RESPONSE', `Cloud API answered HTTP ${httpStatus} with an unexpected body: ${problem}`);
    this.httpStatus = httpStatus;
  }
}
