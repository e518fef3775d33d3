import type { RetrySelection } from '../ledger.js';

/** What a retry was asked for, as `campaign retry --codes … --unknown` and POST /campaigns/{id}/retry both take it. */
export interface RetryRequest {
  /** Failed rows with these error codes (parseRetryCodes); absent: every failed row. */
  codes?: readonly string[] | undefined;
  /** Rows whose outcome is unknown. */
  unknown?: boolean | undefined;
}

/**
 * The rows a retry chooses: `unknown` alone means the unknown rows only; codes, or neither,
 * choose failed rows (and with `unknown`, the unknown rows too).
 */
export function retrySelection(request: RetryRequest): RetrySelection {
  return {
    codes: request.codes ?? [],
    failed: request.unknown !== true || request.codes !== undefined,
    unknown: request.unknown === true,
  };
}
