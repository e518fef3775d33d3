import { AppError } from '../errors/app-error.js';
import type { ErrorCode } from '../errors/error-codes.js';

/**
 * An AppError whose answer needs headers of its own, known only where it is thrown: the dashboard's basic-auth challenge
 * on a 401 to a page's call, the seconds until a throttled login may try again.
 */
export class HeadedAppError extends AppError {
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, headers: Readonly<Record<string, string>>) {
    super(code, message);
    this.headers = headers;
  }
}

/** The headers an error's answer carries (none but a HeadedAppError's). */
export function errorHeaders(error: unknown): Readonly<Record<string, string>> {
  return error instanceof HeadedAppError ? error.headers : {};
}
