import { detectDelimiter } from './delimiter.js';
import { RecordParser } from './record-parser.js';

/** A data row of a file's head, numbered as `campaign send` numbers it (1 = the first record after the header). */
export interface CsvHeadRow {
  number: number;
  values: string[];
}

export interface CsvHead {
  delimiter: string;
  /** The header's names, trimmed as the reader trims them; empty when the first record cannot be read. */
  header: string[];
  /** The readable rows among the first `maxRows` records: a malformed record takes its number but is not listed. */
  rows: CsvHeadRow[];
}

/**
 * The header and first rows of a CSV from its first bytes, read exactly as `campaign send`
 * reads the whole file (the delimiter detected by detectDelimiter, the records split by
 * RecordParser): blank lines and Excel's rows of only delimiters are passed over, before the
 * header too, and a row's number is the one a dry run's refused rows carry. The New campaign
 * page reads the chosen file's start with it, so what it previews is what the service will read.
 * `complete`: the bytes are the whole file; otherwise the last line, perhaps cut, is left out.
 */
export function readCsvHead(bytes: Uint8Array, maxRows: number, complete: boolean): CsvHead {
  const delimiter = detectDelimiter(new TextDecoder().decode(bytes));
  const parser = new RecordParser(delimiter);
  const records = parser.write(bytes);
  if (complete) records.push(...parser.end());
  const [first, ...rest] = records;
  const header = first?.kind === 'row' ? first.fields.map((name) => name.trim()) : [];
  const rows: CsvHeadRow[] = [];
  rest.slice(0, maxRows).forEach((record, index) => {
    if (record.kind === 'row') rows.push({ number: index + 1, values: record.fields });
  });
  return { delimiter, header, rows };
}
