import { join } from 'node:path';
import { AppError } from '../../errors/app-error.js';
import { ProblemsError } from '../../errors/problems-error.js';

/**
 * An error about the spooled file as its sender knows it: the spool's path on this host
 * (`/tmp/campaign-upload-…/orders.csv`) becomes the upload's own name (`orders.csv`).
 */
export function withoutSpoolPath(error: AppError, spoolDir: string): AppError {
  if (!error.message.includes(spoolDir)) return error;
  const named = (text: string) => text.split(join(spoolDir, '/')).join('').split(spoolDir).join('.');
  if (error instanceof ProblemsError) {
    return new ProblemsError(
      error.problems.map((p) => ({ ...p, detail: named(p.detail) })),
      { code: error.code, message: named(error.message), ...(error.status === undefined ? {} : { status: error.status }) },
    );
  }
  return new AppError(error.code, named(error.message), { cause: error.cause });
}
