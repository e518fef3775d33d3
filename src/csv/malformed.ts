/** What csv-parse said about a record it could not parse, as far as we need it. */
export interface MalformedStart {
  /** Line where the record starts. */
  line: number;
  /** csv-parse's code for the first error in the record. */
  code: string;
  /** 1-based field where the first error is, when csv-parse says. */
  field: number | undefined;
  message: string;
  firstErrorLine: number;
  lastErrorLine: number;
  /** The file ended inside an open quote. */
  reachedEnd: boolean;
}

/**
 * A plain-English sentence for the operator: what is wrong, how far the damage goes (an open
 * quote swallows the lines after it into the same record), and how to fix the file.
 * No field values: they may hold phone numbers.
 */
export function malformedProblem(start: MalformedStart, lastLine: number): string {
  const { line, field } = start;
  const inField = field === undefined ? '' : ` in field ${field}`;
  let what: string;
  if (start.code === 'CSV_QUOTE_NOT_CLOSED' || (start.code === 'CSV_INVALID_CLOSING_QUOTE' && start.firstErrorLine > line)) {
    what = 'unclosed quote: a field opens a quote that is never properly closed';
  } else if (start.code === 'CSV_INVALID_CLOSING_QUOTE') {
    what =
      `text after a closing quote${inField}: a quoted field must end at its closing quote ` +
      '(a space counts; a quote inside a quoted field is written twice, as in "say ""hi""")';
  } else if (start.code === 'INVALID_OPENING_QUOTE') {
    what =
      `stray quote${inField}: a field with a quote (") in it must be quoted as a whole, ` +
      'with the quote written twice, as in "12"" pizza"';
  } else {
    what = `cannot be read as CSV (${start.message})`;
  }
  let extent = '';
  if (start.reachedEnd) {
    extent = `; lines ${line}–${lastLine} (the rest of the file) were read as this one record`;
  } else if (lastLine > line) {
    extent = `; lines ${line}–${lastLine} were read as this one record`;
  }
  return `${what}${extent}; check the quoting on line ${line}`;
}
