import { isUtf8 } from 'node:buffer';
import { constants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { AppError } from '../errors/app-error.js';
import { refuseKnownNonCsv } from './file-format.js';
import { refuseIfNotRegular } from './file-kind.js';

/** Bytes read before parsing: enough for any real header line, and for the encoding check. */
export const HEAD_BYTES = 64 * 1024;

const SAVE_AS_UTF8 = 'save it as UTF-8 (in Excel: Save As → "CSV UTF-8 (Comma delimited)")';

/**
 * Non-blocking open: should the path become a FIFO between our `stat` and `open`, opening it
 * returns at once instead of waiting for a writer (the `fstat` after it then refuses it).
 * It changes nothing for a regular file. Windows has no such flag.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Opens the file and reads its first bytes, refusing, before a row is taken from it:
 * - what is not a regular file (a FIFO, /dev/zero, a directory, a socket), checked with
 *   `stat` before opening, because opening a FIFO blocks and /dev/zero never ends;
 * - known formats that are not CSV (an image, an xlsx/ZIP, a PDF, an HTML page);
 * - what cannot be read as UTF-8 text: a UTF-16 file (Excel's "Unicode Text"), or one in a
 *   legacy encoding such as Windows-1252 (Excel's plain "CSV" on Windows), whose names
 *   would arrive garbled.
 * The caller owns the handle.
 */
export async function openWithHead(path: string): Promise<{ handle: FileHandle; head: Buffer }> {
  try {
    refuseIfNotRegular(path, await stat(path));
  } catch (error) {
    throw error instanceof AppError ? error : unreadable(path, error);
  }
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    refuseIfNotRegular(path, await handle.stat());
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const head = buffer.subarray(0, bytesRead);
    refuseKnownNonCsv(path, head);
    checkEncoding(path, head, bytesRead < HEAD_BYTES);
    return { handle, head };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error instanceof AppError ? error : unreadable(path, error);
  }
}

/** CSV_UNREADABLE with the path and the OS reason; `afterLine` when reading failed part-way. */
export function unreadable(path: string, error: unknown, afterLine?: number): AppError {
  const reason = error instanceof Error ? error.message : String(error);
  const where = afterLine === undefined ? '' : ` (reading stopped after line ${afterLine})`;
  return new AppError('CSV_UNREADABLE', `Cannot read ${path}${where}: ${reason}. Check the path and that the file is readable.`, {
    cause: error,
  });
}

function checkEncoding(path: string, head: Buffer, wholeFile: boolean): void {
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
    throw new AppError('CSV_UNREADABLE', `${path} is UTF-16 text; ${SAVE_AS_UTF8}. Nothing was enqueued.`);
  }
  // A multi-byte character may be cut at the end of the head: check up to its last ASCII byte.
  let end = head.length;
  if (!wholeFile) while (end > 0 && (head[end - 1] ?? 0) >= 0x80) end--;
  if (!isUtf8(head.subarray(0, end))) {
    throw new AppError(
      'CSV_UNREADABLE',
      `${path} is not UTF-8 text (it looks like a legacy encoding such as Windows-1252, so names ` +
        `would arrive garbled); ${SAVE_AS_UTF8}. Nothing was enqueued.`,
    );
  }
}
