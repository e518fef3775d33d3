import { join } from 'node:path';
import { AppError } from '../../errors/app-error.js';
import { ProblemsError } from '../../errors/problems-error.js';

/**
 * An error about the spooled file as its sender knows it: the spool's path on this host
 * (`/tmp/campaign-upload-…/orders.csv`) becomes the upload's own name (`orders.csv`).
 */
export function withoutSpoolPath(error: AppError, spoolDir: string): AppError {
  if (!error.message.includes(spoolDir)) return error;
  return withTexts(error, (text) => text.split(join(spoolDir, '/')).join('').split(spoolDir).join('.'));
}

/**
 * An error without this host's paths: each path in `names` becomes what a client may know of
 * it (REPORTS_DIR, the rate card's file name). An answer names no place on the service's disk.
 */
export function withoutHostPaths(error: AppError, names: ReadonlyMap<string, string>): AppError {
  const known = [...names].filter(([path]) => path !== '' && error.message.includes(path));
  if (known.length === 0) return error;
  return withTexts(error, (text) => known.reduce((out, [path, name]) => out.split(path).join(name), text));
}

/** The error with its message and each problem's detail rewritten by `map`; code, status and fields kept. */
function withTexts(error: AppError, map: (text: string) => string): AppError {
  if (error instanceof ProblemsError) {
    return new ProblemsError(
      error.problems.map((p) => ({ ...p, detail: map(p.detail) })),
      { code: error.code, message: map(error.message), ...(error.status === undefined ? {} : { status: error.status }) },
    );
  }
  return new AppError(error.code, map(error.message), { cause: error.cause });
}
