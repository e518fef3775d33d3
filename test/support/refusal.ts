import { AppError } from '../../src/errors/app-error.js';

/** The AppError `run` refuses with; a test fails when it returns, or throws anything else. */
export function refusalOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}
