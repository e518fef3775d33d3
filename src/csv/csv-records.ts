import type { FileHandle } from 'node:fs/promises';
import { AppError } from '../errors/app-error.js';
import { detectDelimiter, parseDelimiterOption } from './delimiter.js';
import { openWithHead, unreadable } from './file-head.js';
import { UNCLOSED_QUOTE_FIX, unclosedQuoteText } from './malformed.js';
import { prescanQuotes, type PrescanResult } from './quote-prescan.js';
import { RecordParser, type CsvRecord } from './record-parser.js';

export type { CsvRecord } from './record-parser.js';
export { delimiterLabel, detectDelimiter, parseDelimiterOption } from './delimiter.js';

export interface CsvSource {
  /** Column names from the header line, trimmed of spaces (Unicode ones too) and BOMs. */
  header: string[];
  /** The field delimiter in use: the one given, or the one detected from the header line. */
  delimiter: string;
  /**
   * Data records the pre-scan counted (blank lines and rows of only delimiters excluded);
   * for a progress bar: a file with broken quoting may yield a few more or fewer.
   */
  estimatedRows: number;
  /**
   * Every data record in file order, header excluded: a `row` (fields as written, quoted ones
   * unquoted) or a `malformed` record with its reason; blank lines are skipped but counted
   * in line numbers. Rejects only with AppError CSV_UNREADABLE (a read error part-way).
   */
  records: AsyncIterableIterator<CsvRecord>;
  /** Stops reading and releases the file; safe to call more than once. */
  close(): void;
}

/** Bytes per read while parsing: small enough that close() takes effect soon. */
const READ_BYTES = 64 * 1024;

/**
 * Streams a CSV file: the header first, then one record at a time, never the whole file.
 * Records are arrays (not objects) so that a record with the wrong number of fields can be
 * reported instead of silently padded or truncated.
 *
 * Refuses the whole file, before any record is returned, when it is not a regular file, is
 * a known non-CSV format, is not UTF-8, has no usable header, or has a quote that never
 * closes before the end of the file (read as CSV, the rest of the file would be one value).
 * That last check reads the whole file once as bytes first (see quote-prescan.ts).
 */
export async function openCsv(path: string, options: { delimiter?: string | undefined } = {}): Promise<CsvSource> {
  const given = options.delimiter === undefined ? undefined : parseDelimiterOption(options.delimiter);
  const { handle, head } = await openWithHead(path);
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    handle.close().catch(() => undefined);
  };
  try {
    const delimiter = given ?? detectDelimiter(head.toString('utf8'));
    let scan: PrescanResult;
    try {
      scan = await prescanQuotes(handle, delimiter);
    } catch (error) {
      throw unreadable(path, error);
    }
    refuseUnclosedQuote(path, scan);
    const parser = new RecordParser(delimiter);
    const records = readRecords(handle, parser, path, () => released, release);
    const first = await records.next();
    const header = checkHeader(path, first.done === true ? undefined : first.value);
    const close = (): void => {
      release();
      // Ends the generator if it waits at a record; one busy reading sees `released` next.
      records.return(undefined).catch(() => undefined);
    };
    return { header, delimiter, estimatedRows: Math.max(0, scan.records - 1), records, close };
  } catch (error) {
    release();
    throw error instanceof AppError ? error : unreadable(path, error);
  }
}

/**
 * Reads the file chunk by chunk into the parser; the records of each chunk are yielded before
 * the next read, so memory holds one chunk and its records.
 */
async function* readRecords(
  handle: FileHandle,
  parser: RecordParser,
  path: string,
  isReleased: () => boolean,
  release: () => void,
): AsyncGenerator<CsvRecord, undefined> {
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  let position = 0;
  try {
    for (;;) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, READ_BYTES, position));
      } catch (error) {
        if (isReleased()) return undefined;
        throw unreadable(path, error, parser.lines);
      }
      if (isReleased()) return undefined;
      if (bytesRead === 0) break;
      position += bytesRead;
      // The parser decodes the bytes into strings at once, so the buffer can be reused.
      for (const record of parser.write(buffer.subarray(0, bytesRead))) yield record;
    }
    for (const record of parser.end()) yield record;
    return undefined;
  } finally {
    release();
  }
}

function refuseUnclosedQuote(path: string, scan: PrescanResult): void {
  const open = scan.unclosed;
  if (open === undefined) return;
  const what = unclosedQuoteText(open.line, open.field, open.lastLine);
  if (open.inHeader) {
    throw new AppError('CSV_HEADER_INVALID', `${path}: the header on line ${open.line} cannot be read: unclosed quote: ${what}. ${FIX}`);
  }
  throw new AppError(
    'CSV_UNCLOSED_QUOTE',
    `${path}: ${what}, so the file is refused whole. Fix line ${open.line}: ${UNCLOSED_QUOTE_FIX}. Nothing was created.`,
  );
}

const FIX = 'Fix the header line; nothing was enqueued.';

/** Header names, or CSV_HEADER_INVALID naming every problem with it. */
function checkHeader(path: string, first: CsvRecord | undefined): string[] {
  if (first === undefined) {
    throw new AppError(
      'CSV_HEADER_INVALID',
      `${path} has no header: the file is empty or has only blank lines. The first line must name the columns; nothing was enqueued.`,
    );
  }
  if (first.kind === 'malformed') {
    throw new AppError('CSV_HEADER_INVALID', `${path}: the header on line ${first.line} cannot be read: ${first.problem}. ${FIX}`);
  }
  // trim() drops Unicode spaces and BOMs as well (a BOM pasted after the first one).
  const header = first.fields.map((name) => name.trim());
  const problems: string[] = [];
  const unnamed = header.flatMap((name, index) => (name === '' ? [index + 1] : []));
  if (unnamed.length > 0)
    problems.push(`column${unnamed.length > 1 ? 's' : ''} ${unnamed.join(', ')} ha${unnamed.length > 1 ? 've' : 's'} no name`);
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
