import { isUtf8 } from 'node:buffer';
import { open, type FileHandle } from 'node:fs/promises';
import { AppError } from '../errors/app-error.js';

/** Bytes read before parsing: enough for any real header line, and for the encoding check. */
export const HEAD_BYTES = 64 * 1024;

const SAVE_AS_UTF8 = 'save it as UTF-8 (in Excel: Save As → "CSV UTF-8 (Comma delimited)")';

/**
 * Opens the file and reads its first bytes, refusing what cannot be read as UTF-8 text before
 * a row is taken from it: a UTF-16 file (Excel's "Unicode Text"), or one in a legacy encoding
 * such as Windows-1252 (Excel's plain "CSV" on Windows), whose names would arrive garbled.
 * The caller owns the handle.
 */
export async function openWithHead(path: string): Promise<{ handle: FileHandle; head: Buffer }> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const head = buffer.subarray(0, bytesRead);
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
  return new AppError('CSV_UNREADABLE', `Cannot read ${path}${where}: ${reason}. Check the path and that the file is readable.`, { cause: error });
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
      `${path} is not UTF-8 text (it looks like a legacy encoding such as Windows-1252, so names would arrive garbled); ${SAVE_AS_UTF8}. Nothing was enqueued.`,
    );
  }
}
