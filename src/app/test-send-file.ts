import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { openCsv } from '../csv/csv-records.js';
import { AppError } from '../errors/app-error.js';

/**
 * `send --test-to N1,N2…`: the first data rows of the campaign's file, one per test number, each
 * with its recipient replaced by its test number, written to `dir`. The test campaign is made
 * from it as from any file, so each test number gets exactly the message its row would get.
 */
export async function writeTestSendFile(
  source: { file: string; delimiter: string | undefined; phoneColumn: string },
  testTo: readonly string[],
  request: { dir: string; testToName: string },
): Promise<string> {
  const csv = await openCsv(source.file, { delimiter: source.delimiter });
  const file = join(request.dir, 'test-send.csv');
  try {
    const phoneAt = csv.header.indexOf(source.phoneColumn);
    // The real send refuses it with its own words (CSV_HEADER_INVALID): the test is made of the same file.
    if (phoneAt < 0) return source.file;
    const rows: string[][] = [];
    for await (const record of csv.records) {
      if (record.kind !== 'row') continue;
      const fields = [...record.fields];
      fields[phoneAt] = testTo[rows.length] ?? '';
      rows.push(fields);
      if (rows.length === testTo.length) break;
    }
    if (rows.length < testTo.length) {
      throw new AppError(
        'TEST_SEND_INVALID',
        `${request.testToName}: ${testTo.length} test numbers, but the recipients have ${rows.length} readable rows; ` +
          `give at most ${rows.length}`,
      );
    }
    const out = createWriteStream(file);
    const writer = stringify({ header: true, columns: csv.header, delimiter: csv.delimiter });
    writer.pipe(out);
    for (const row of rows) writer.write(row);
    writer.end();
    await finished(out);
    return file;
  } finally {
    csv.close();
  }
}
