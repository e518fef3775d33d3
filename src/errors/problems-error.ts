import { AppError } from './app-error.js';
import type { ErrorCode } from './error-codes.js';

/** One problem of a refused spec or file, named the way its sender knows it: a field (JSON path or flag) or a CSV column. */
export interface ProblemItem {
  code: string;
  detail: string;
  field?: string | undefined;
  column?: string | undefined;
}

/**
 * An AppError that carries every problem found, so a caller fixes them in one go. Its message
 * is their details, one per line; a single problem keeps its own code and message.
 */
export class ProblemsError extends AppError {
  readonly problems: readonly ProblemItem[];
  /** The HTTP status, when not the code's own (a request that does not parse: 400). */
  readonly status: number | undefined;

  /**
   * `code`: the code of them all (default: the one they share, else SPEC_INVALID); `message`:
   * one text for them all, for a reader of one message (default: the details, one per line).
   */
  constructor(problems: readonly ProblemItem[], options: { code?: ErrorCode; status?: number; message?: string } = {}) {
    const codes = new Set(problems.map((p) => p.code));
    const shared = codes.size === 1 ? (problems[0]!.code as ErrorCode) : undefined;
    super(options.code ?? shared ?? 'SPEC_INVALID', options.message ?? problems.map((p) => p.detail).join('\n'));
    this.problems = problems;
    this.status = options.status;
  }
}

/** The problems of an error: a ProblemsError's, or the error as the one problem it is (`field` naming where, when known). */
export function problemsOf(error: AppError, field?: string): ProblemItem[] {
  if (error instanceof ProblemsError) return [...error.problems];
  return [{ code: error.code, detail: error.message, ...(field === undefined ? {} : { field }) }];
}
