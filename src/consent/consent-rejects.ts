import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { basename, dirname, extname, join } from 'node:path';
import { stringify } from 'csv-stringify';
import { spreadsheetSafe } from '../campaigns/report/spreadsheet-safe.js';
import { AppError } from '../errors/app-error.js';

/** One row of a consent file that was not recorded. */
export interface ConsentRejection {
  /** Data row number (the header is not a row). */
  row: number;
  /** The file's line where the row starts. */
  line: number;
  phone: string;
  reason: string;
  detail: string;
}

/** Beside the consent file: `signup.csv` → `signup.rejects.csv`. */
export function consentRejectsPath(file: string): string {
  const extension = extname(file);
  return join(dirname(file), `${basename(file, extension)}.rejects.csv`);
}

/**
 * A consent file's rejected rows as they are found, `row,line,phone,reason`, opened at the
 * first; every cell spreadsheet-safe (a cell from the file may hold a formula). A rejects file
 * an earlier import of the same file left is removed first, so what is there is this import's.
 */
export class ConsentRejectsFile {
  #csv: ReturnType<typeof stringify> | undefined;
  #out: WriteStream | undefined;
  #failure: Error | undefined;

  private constructor(readonly path: string) {}

  static async open(path: string): Promise<ConsentRejectsFile> {
    await rm(path, { force: true }).catch(() => undefined);
    return new ConsentRejectsFile(path);
  }

  add(rejection: ConsentRejection): void {
    if (this.#csv === undefined) {
      const csv = stringify({ header: true, columns: ['row', 'line', 'phone', 'reason'] });
      const out = createWriteStream(this.path);
      // A write that fails later (disk full, folder removed) must not crash the import: close() reports it.
      out.on('error', (error) => (this.#failure ??= error));
      csv.pipe(out);
      this.#csv = csv;
      this.#out = out;
    }
    const { row, line, phone, reason, detail } = rejection;
    this.#csv.write([row, line, spreadsheetSafe(phone), spreadsheetSafe(`${reason}: ${detail}`)]);
  }

  /** Finishes the file: its path, or undefined when no row was rejected. */
  async close(): Promise<string | undefined> {
    const { csv, out } = { csv: this.#csv, out: this.#out };
    if (csv === undefined || out === undefined) return undefined;
    csv.end();
    if (this.#failure === undefined && !out.writableFinished) {
      await Promise.race([once(out, 'finish'), once(out, 'error')]).catch(() => undefined);
    }
    if (this.#failure !== undefined) {
      throw new AppError(
        'OUTPUT_UNWRITABLE',
        `The rejects file ${this.path} could not be written (${this.#failure.message}); the first rejected rows are in ` +
          "the command's answer. Make the folder writable and import again (an entry already on record is kept once).",
        { cause: this.#failure },
      );
    }
    return this.path;
  }
}
