import { rm } from 'node:fs/promises';
import { RejectsFile, type RejectedRecord } from '../campaigns/ingest/rejects-file.js';

/** One row of a consent file that was not recorded: its data row number, the file's line where it starts, why. */
export type ConsentRejection = RejectedRecord;

/**
 * A consent file's rejected rows as they are found, `row,line,phone,reason`. A rejects file an
 * earlier import of the same file left is removed first, so what is there is this import's.
 */
export async function openConsentRejects(path: string): Promise<RejectsFile> {
  await rm(path, { force: true }).catch(() => undefined);
  return new RejectsFile(path, {
    withLine: true,
    elsewhere:
      "the first rejected rows are in the command's answer. Make the folder writable and import again " +
      '(an entry already on record is kept once).',
  });
}
