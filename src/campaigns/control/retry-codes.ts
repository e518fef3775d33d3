import { AppError } from '../../errors/app-error.js';

/**
 * The error codes a failed row can carry in the report's `error_code`: Meta's numeric codes,
 * and the few of our own given to rows that failed without a Meta answer (send-processor.ts,
 * abandoned-jobs.ts). Anything else picks no row, so it is a typo: refused, not "0 rows put back".
 */
const OWN_FAILURE_CODES = /^(?:\d+|HTTP_\d{3}|TRANSPORT_[A-Z_]+|WORKER_GAVE_UP|JOB_PAYLOAD_INVALID)$/;

/** `retry --codes 131000,131016` → the codes; a bad or empty list is OPTION_INVALID, naming `flag`. */
export function parseRetryCodes(value: string, flag = '--codes'): string[] {
  const codes = [
    ...new Set(
      value
        .split(',')
        .map((code) => code.trim().toUpperCase())
        .filter((code) => code !== ''),
    ),
  ];
  if (codes.length === 0) {
    throw new AppError(
      'OPTION_INVALID',
      `${flag} "${value.slice(0, 40)}" names no code: give the error codes of the failed rows to ` +
        `send again, comma-separated, e.g. ${flag} 131026,131000`,
    );
  }
  const bad = codes.find((code) => !OWN_FAILURE_CODES.test(code));
  if (bad !== undefined) {
    throw new AppError(
      'OPTION_INVALID',
      `${flag} "${bad.slice(0, 40)}" is not an error code: codes are Meta's numeric error codes, e.g. 131026 (or ours, ` +
        `as the report's error_code shows them: WORKER_GAVE_UP, HTTP_502, TRANSPORT_CONNECT, JOB_PAYLOAD_INVALID)`,
    );
  }
  return codes;
}
