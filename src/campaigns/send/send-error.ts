import { CloudApiError, CloudApiTransportError } from '../../cloud-api/cloud-api-errors.js';
import { actionForMetaCode, TRANSPORT_ACTION, type ErrorAction } from './error-policy.js';

/** A failed send as the worker acts on it: what to do (error-policy.ts), the row's code and detail, Meta's code. */
export interface SendError {
  action: ErrorAction;
  code: string;
  detail: string;
  metaCode: number | undefined;
}

/** The Cloud API's error (or the transport's) as a SendError; anything else is not a send's failure and is thrown on. */
export function describeSendError(error: unknown): SendError {
  if (error instanceof CloudApiError) {
    return {
      action: actionForMetaCode(error.metaCode, error.httpStatus, error.subcode),
      code: error.metaCode === undefined ? `HTTP_${error.httpStatus}` : String(error.metaCode),
      detail: error.details ?? error.message,
      metaCode: error.metaCode,
    };
  }
  if (error instanceof CloudApiTransportError) {
    return {
      action: TRANSPORT_ACTION,
      code: `TRANSPORT_${error.failure.toUpperCase().replace('-', '_')}`,
      detail: error.message,
      metaCode: undefined,
    };
  }
  throw error;
}
