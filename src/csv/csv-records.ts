import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { AppError } from '../errors/app-error.js';

export interface CsvSource {
  header: string[];
  /** Data records as arrays of fields, header excluded, blank lines skipped. */
  records: AsyncIterableIterator<string[]>;
  close(): void;
}

/**
 * Streams a CSV file: the header first, then one record at a time, never the whole file.
 * Records are arrays (not objects) so that a record with the wrong number of fields can be
 * reported instead of silently padded or truncated.
 */
export async function openCsv(path: string, options: { delimiter?: string | undefined } = {}): Promise<CsvSource> {
  const file = createReadStream(path);
  const parser = file.pipe(
    parse({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      ...(options.delimiter === undefined ? {} : { delimiter: options.delimiter }),
    }),
  );
  file.on('error', (error) => parser.destroy(error));
  const records = parser[Symbol.asyncIterator]() as AsyncIterableIterator<string[]>;
  let first: IteratorResult<string[]>;
  try {
    first = await records.next();
  } catch (error) {
    file.destroy();
    throw new AppError('CSV_UNREADABLE', `Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (first.done === true) {
    throw new AppError('CSV_HEADER_INVALID', `${path} is empty: the first line must be a header naming the columns`);
  }
  return {
    header: first.value.map((name) => name.trim()),
    records,
    close: () => {
      parser.destroy();
      file.destroy();
    },
  };
}
