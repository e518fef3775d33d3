import { PROBLEM_CONTENT_TYPE, problemSchema } from '../problem.js';
import type { ApiAnswer } from '../api-route.js';

const MEANINGS: Record<number, string> = {
  400: 'The request does not parse (API_REQUEST_INVALID)',
  401: 'No token, or one unknown, revoked or expired (API_TOKEN_*)',
  403: "The token's scope is too narrow (API_SCOPE_REFUSED), or a page's CSRF token is missing (API_CSRF_REFUSED)",
  404: 'No such campaign or route',
  409: 'The campaign is in a state that refuses this (CAMPAIGN_STATE_CONFLICT), or the Idempotency-Key is in use',
  410: "The campaign's rows were purged (CAMPAIGN_PURGED)",
  413: 'The upload is larger than API_MAX_UPLOAD_BYTES (API_UPLOAD_TOO_LARGE)',
  415: 'A content type the route does not read',
  422: 'The spec or the file is refused: every problem is listed',
  429: 'More than API_RATE_LIMIT requests in a minute (API_RATE_LIMITED)',
  431: 'The URL and headers are larger than the server reads, 16 KiB (API_HEADERS_TOO_LARGE)',
  503: 'Redis is not answering (REDIS_UNAVAILABLE)',
};

/** The problem-document answers a route can give, by status. */
export function problemAnswers(...statuses: number[]): Record<number, ApiAnswer> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: MEANINGS[status] ?? 'A problem', schema: problemSchema, contentType: PROBLEM_CONTENT_TYPE },
    ]),
  );
}
