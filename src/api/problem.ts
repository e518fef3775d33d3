import { z } from 'zod';
import { isAppError } from '../errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../errors/error-codes.js';
import { ProblemsError, type ProblemItem } from '../errors/problems-error.js';
import { REDIS_RETRY_AFTER_SECONDS } from '../http/redis-retry.js';

export { ProblemsError, type ProblemItem } from '../errors/problems-error.js';

/** One problem of a refused spec or file, named the way its sender knows it. */
export const problemItemSchema = z.object({
  code: z.string().meta({ description: 'The stable error code of this problem (docs/errors.md).' }),
  detail: z.string(),
  field: z.string().optional().meta({ description: 'The JSON path of the spec field, e.g. `schedule.at`.' }),
  column: z.string().optional().meta({ description: 'The CSV column, as its header names it.' }),
});
// The schema describes the items ProblemsError carries.
const itemFits: ProblemItem extends z.infer<typeof problemItemSchema> ? true : false = true;
void itemFits;

/** RFC 9457 problem details, with the project's stable error code. */
export const problemSchema = z
  .object({
    type: z.string().meta({ description: 'A URI naming the kind of problem: `urn:campaign-worker:error:CODE`.' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().meta({ description: 'The stable error code (docs/errors.md); decide on it, never on `detail`.' }),
    instance: z.string().optional(),
    problems: z.array(problemItemSchema).optional().meta({ description: 'Every problem at once (422).' }),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof problemSchema>;

/** The HTTP status of a code when it reaches the API: what the client must change decides it. */
const STATUS_OF: Partial<Record<ErrorCode, number>> = {
  API_TOKEN_MISSING: 401,
  API_TOKEN_INVALID: 401,
  API_TOKEN_EXPIRED: 401,
  API_SCOPE_REFUSED: 403,
  API_CSRF_REFUSED: 403,
  API_NOT_FOUND: 404,
  API_METHOD_NOT_ALLOWED: 405,
  API_REQUEST_TIMEOUT: 408,
  API_URI_TOO_LONG: 414,
  API_HEADERS_TOO_LARGE: 431,
  CAMPAIGN_NOT_FOUND: 404,
  AUDIENCE_NOT_FOUND: 404,
  HOOK_NOT_FOUND: 404,
  REJECTS_NOT_FOUND: 404,
  API_TOKEN_NOT_FOUND: 404,
  API_REQUEST_INVALID: 400,
  ARGUMENT_INVALID: 400,
  API_UPLOAD_TOO_LARGE: 413,
  API_RATE_LIMITED: 429,
  DASHBOARD_LOGIN_THROTTLED: 429,
  IDEMPOTENCY_KEY_IN_USE: 409,
  CAMPAIGN_STATE_CONFLICT: 409,
  CAMPAIGN_NOT_FINISHED: 409,
  CAMPAIGN_MISMATCH: 409,
  CAMPAIGN_FILE_MISMATCH: 409,
  CAMPAIGN_PURGED: 410,
  API_TOKEN_NAME_TAKEN: 409,
  REDIS_UNAVAILABLE: 503,
  OUTPUT_UNWRITABLE: 500,
  CONFIG_INVALID: 422,
  INTERNAL_ERROR: 500,
  CLOUD_API_ERROR: 502,
  CLOUD_API_TRANSPORT: 502,
  CLOUD_API_BAD_RESPONSE: 502,
};

/** A code the API answers with: a client error is 422 unless said otherwise (the request was read, its content refused). */
export function statusOf(code: ErrorCode): number {
  return STATUS_OF[code] ?? 422;
}

/** The problem document of an error. Anything but an AppError is a bug: its text is not shown (it may hold anything). */
export function problemOf(error: unknown, instance?: string): Problem {
  if (!isAppError(error)) {
    return {
      type: typeUri('INTERNAL_ERROR'),
      title: ERROR_CODES.INTERNAL_ERROR,
      status: 500,
      detail: 'The request failed (a bug): the service log says why.',
      code: 'INTERNAL_ERROR',
      ...(instance === undefined ? {} : { instance }),
    };
  }
  const problems = error instanceof ProblemsError ? { problems: [...error.problems] } : {};
  const status = error instanceof ProblemsError && error.status !== undefined ? error.status : statusOf(error.code);
  return {
    type: typeUri(error.code),
    title: ERROR_CODES[error.code],
    status,
    detail: error.message,
    code: error.code,
    ...(instance === undefined ? {} : { instance }),
    ...problems,
  };
}

/** Headers a problem carries besides its body: `Retry-After` where retrying later is the remedy. */
export function problemHeaders(problem: Problem): Record<string, string> {
  return problem.code === 'REDIS_UNAVAILABLE' ? { 'retry-after': String(REDIS_RETRY_AFTER_SECONDS) } : {};
}

function typeUri(code: ErrorCode): string {
  return `urn:campaign-worker:error:${code}`;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
