import { AppError } from '../errors/app-error.js';
import { detectDelimiter, parseDelimiterOption } from './delimiter.js';
import { openWithHead, unreadable } from './file-head.js';
import { RecordParser, type CsvRecord } from './record-parser.js';

export type { CsvRecord } from './record-parser.js';
export { delimiterLabel, parseDelimiterOption } from './delimiter.js';

export interface CsvSource {
  /** Column names from the header line, trimmed (a UTF-8 BOM is dropped). */
  header: string[];
  /** The field delimiter in use: the one given, or the one detected from the header line. */
  delimiter: string;
  /**
   * Data records in file order, header excluded, blank lines skipped (but counted in line
   * numbers). Fields are as written, except that leading spaces before a field are dropped,
   * so that `a, "b, c"` parses; trailing spaces stay. A record that cannot be parsed comes as
   * `malformed` and reading goes on. Rejects only with AppError CSV_UNREADABLE (a read error).
   */
  records: AsyncIterableIterator<CsvRecord>;
  /** Stops reading and releases the file and the parser; safe to call more than once. */
  close(): void;
}

/**
 * Streams a CSV file: the header first, then one record at a time, never the whole file.
 * Records are arrays (not objects) so that a record with the wrong number of fields can be
 * reported instead of silently padded or truncated. Refuses the whole file, before any record
 * is read, when it cannot be opened, is not UTF-8, or has no usable header.
 */
export async function openCsv(path: string, options: { delimiter?: string | undefined } = {}): Promise<CsvSource> {
  const given = options.delimiter === undefined ? undefined : parseDelimiterOption(options.delimiter);
  const { handle, head } = await openWithHead(path);
  const delimiter = given ?? detectDelimiter(head.toString('utf8'));

  const file = handle.createReadStream({ start: 0 });
  const parser = new RecordParser(delimiter);
  file.on('error', (error) => parser.destroy(unreadable(path, error, parser.info.lines)));
  file.pipe(parser);
  const close = (): void => {
    file.unpipe(parser);
    file.destroy();
    parser.destroy();
  };
  const records = parser[Symbol.asyncIterator]() as AsyncIterableIterator<CsvRecord>;

  try {
    const first = await records.next();
    const header = checkHeader(path, first.done === true ? undefined : first.value);
    return { header, delimiter, records, close };
  } catch (error) {
    close();
    throw error instanceof AppError ? error : unreadable(path, error);
  }
}

const FIX = 'Fix the header line; nothing was enqueued.';

/** Header names, or CSV_HEADER_INVALID naming every problem with it. */
function checkHeader(path: string, first: CsvRecord | undefined): string[] {
  if (first === undefined) {
    throw new AppError('CSV_HEADER_INVALID', `${path} has no header: the file is empty or has only blank lines. The first line must name the columns; nothing was enqueued.`);
  }
  if (first.kind === 'malformed') {
    throw new AppError('CSV_HEADER_INVALID', `${path}: the header on line ${first.line} cannot be read: ${first.problem}. ${FIX}`);
  }
  const header = first.fields.map((name) => name.trim());
  const problems: string[] = [];
  const unnamed = header.flatMap((name, index) => (name === '' ? [index + 1] : []));
  if (unnamed.length > 0) problems.push(`column${unnamed.length > 1 ? 's' : ''} ${unnamed.join(', ')} ha${unnamed.length > 1 ? 've' : 's'} no name`);
  const seen = new Map<string, number[]>();
  header.forEach((name, index) => {
    if (name !== '') seen.set(name, [...(seen.get(name) ?? []), index + 1]);
  });
  for (const [name, columns] of seen) {
    if (columns.length > 1) problems.push(`"${name}" names columns ${columns.join(' and ')}`);
  }
  if (problems.length > 0) {
    throw new AppError(
      'CSV_HEADER_INVALID',
      `${path}: the header on line ${first.line} must give every column a unique name, but ${problems.join('; ')}. ` +
        `Name or remove those columns (an unnamed column is often a stray delimiter at the end of the line). ${FIX}`,
    );
  }
  return header;
}
