import { constants, createWriteStream, type WriteStream } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { basename, dirname, extname, join } from 'node:path';
import { stringify } from 'csv-stringify';
import type { RefusedRow } from './producer.js';
import { spreadsheetSafe } from '../report/spreadsheet-safe.js';
import { AppError } from '../../errors/app-error.js';
import { makeDirectory } from '../../files/make-directory.js';

/**
 * A directory we will write into, created if missing, or OUTPUT_UNWRITABLE saying why not.
 * `send` calls it before anything is created: rejected rows that can be written nowhere
 * would be lost.
 */
export async function checkWritableDir(dir: string, setting: string): Promise<void> {
  try {
    await makeDirectory(dir);
    if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    await access(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOTDIR' || code === 'EEXIST'
        ? 'it (or a part of its path) is a file, not a directory'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : (error as Error).message;
    throw new AppError(
      'OUTPUT_UNWRITABLE',
      `${setting} "${dir}" cannot be written: ${why}. Point ${setting} at a writable directory ` +
        `(it is created if missing); nothing was created.`,
      { cause: error },
    );
  }
}

/** Where a campaign's rejected and skipped rows are written: REPORTS_DIR/<id>.rejects.csv (a dry run's apart). */
export function rejectsFilePath(reportsDir: string, campaignId: string, dryRun = false): string {
  return join(reportsDir, `${campaignId}${dryRun ? '.dry-run' : ''}.rejects.csv`);
}

/** An import's rejects file, beside the file it read: `signup.csv` → `signup.rejects.csv`. */
export function rejectsBeside(file: string): string {
  return join(dirname(file), `${basename(file, extname(file))}.rejects.csv`);
}

/** Where a campaign's rejected and skipped rows go as they are found: a file (RejectsFile), or the answer of an API dry run. */
export interface RejectsSink {
  add(refused: RefusedRow): void;
  /** Finishes; the path of the file written, or undefined when there is none. */
  close(): Promise<string | undefined>;
}

/** A refused row as a rejects file takes it: a campaign's (RefusedRow), or another import's with reasons of its own. */
export type RejectedRecord = Omit<RefusedRow, 'reason'> & { reason: string };

/** How a rejects file is written: with the file's line beside the row, and what to do when it cannot be written. */
export interface RejectsFileOptions {
  withLine?: boolean;
  /** The end of OUTPUT_UNWRITABLE's message: where else the refused rows can be found. */
  elsewhere?: string;
}

/**
 * Rejected and skipped rows as they are found: `row,phone,reason` (or `row,line,phone,reason`),
 * opened on the first one. Every cell is made spreadsheet-safe (a cell from the file may hold a formula).
 */
export class RejectsFile implements RejectsSink {
  readonly #path: string;
  readonly #options: RejectsFileOptions;
  #csv: ReturnType<typeof stringify> | undefined;
  #out: WriteStream | undefined;
  #failure: Error | undefined;
  #closed: Promise<string | undefined> | undefined;

  constructor(path: string, options: RejectsFileOptions = {}) {
    this.#path = path;
    this.#options = options;
  }

  add(refused: RejectedRecord): void {
    const withLine = this.#options.withLine === true;
    if (this.#csv === undefined) {
      const csv = stringify({ header: true, columns: withLine ? ['row', 'line', 'phone', 'reason'] : ['row', 'phone', 'reason'] });
      const out = createWriteStream(this.#path);
      // A write that fails later (disk full, directory removed) must not crash ingest: close() reports it.
      out.on('error', (error) => (this.#failure ??= error));
      csv.pipe(out);
      this.#csv = csv;
      this.#out = out;
    }
    const phone = spreadsheetSafe(refused.phone);
    const reason = spreadsheetSafe(`${refused.reason}: ${refused.detail}`);
    this.#csv.write(withLine ? [refused.row, refused.line, phone, reason] : [refused.row, phone, reason]);
  }

  /** Finishes the file; returns its path, or undefined when no row was refused. */
  close(): Promise<string | undefined> {
    this.#closed ??= (async () => {
      const { csv, out } = { csv: this.#csv, out: this.#out };
      if (csv === undefined || out === undefined) return undefined;
      csv.end();
      if (this.#failure === undefined && !out.writableFinished) {
        await Promise.race([once(out, 'finish'), once(out, 'error')]).catch(() => undefined);
      }
      if (this.#failure !== undefined) {
        throw new AppError(
          'OUTPUT_UNWRITABLE',
          `The rejects file ${this.#path} could not be written (${this.#failure.message}); ` +
            (this.#options.elsewhere ?? 'every refused row is also in the ledger: `campaign report ID` lists them.'),
          { cause: this.#failure },
        );
      }
      return this.#path;
    })();
    return this.#closed;
  }
}
