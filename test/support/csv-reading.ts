import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CsvRecord, CsvSource } from '../../src/csv/csv-records.js';

/** Temp CSV files for one test file: `write` makes one, `cleanup` (in afterAll) removes them all. */
export function csvFiles(label: string): { dir: string; write: (content: string | Buffer) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  let files = 0;
  return {
    dir,
    write(content) {
      const path = join(dir, `file-${++files}.csv`);
      writeFileSync(path, content);
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Every record of a source, closing it afterwards. */
export async function readAll(source: CsvSource): Promise<CsvRecord[]> {
  const records: CsvRecord[] = [];
  try {
    for await (const record of source.records) records.push(record);
  } finally {
    source.close();
  }
  return records;
}
