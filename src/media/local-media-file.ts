import { constants, type promises as fsPromises } from 'node:fs';
import { open } from 'node:fs/promises';
import { mimeTypeOfName } from './media-formats.js';
import { mediaProblem, type MediaProblem } from './media-problem.js';
import type { FetchedMedia } from './media-read.js';

/**
 * A header's media from a file the operator named (`--header-file-column`): a regular file
 * only, read up to `maxBytes`. It is opened first and judged on what was opened (fstat), so a
 * name that points (by a link) at a device such as /dev/zero or /dev/urandom, a named pipe or a
 * directory is refused without being read; opened non-blocking, so a pipe with no writer does
 * not hang the command. The file's extension stands for a server's Content-Type.
 */
export async function readLocalMediaFile(path: string, maxBytes: number): Promise<FetchedMedia | MediaProblem> {
  let handle: fsPromises.FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return mediaProblem(
      'MEDIA_UNREACHABLE',
      `the file ${path} cannot be opened (${code}): check the path in the column and its permissions`,
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      return mediaProblem('MEDIA_UNREACHABLE', `${path} is not a regular file (a directory, device or pipe): name the media file itself`);
    }
    if (stat.size > maxBytes) return tooLarge(path, `${stat.size} bytes`, maxBytes);
    const bytes = await readAtMost(handle, maxBytes);
    // The file can grow between the stat and the read.
    if (bytes === undefined) return tooLarge(path, `more than ${maxBytes} bytes`, maxBytes);
    return { ok: true, bytes, declaredType: mimeTypeOfName(path), from: path };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return mediaProblem('MEDIA_UNREACHABLE', `the file ${path} could not be read (${code})`);
  } finally {
    await handle.close();
  }
}

/** The whole file, or undefined as soon as it turns out longer than `maxBytes`. */
async function readAtMost(handle: fsPromises.FileHandle, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(1024 * 1024, maxBytes - total + 1));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    total += bytesRead;
    if (total > maxBytes) return undefined;
    chunks.push(chunk.subarray(0, bytesRead));
  }
}

function tooLarge(path: string, size: string, maxBytes: number): MediaProblem {
  return mediaProblem('MEDIA_TOO_LARGE', `${path} is ${size}; at most ${maxBytes} bytes are taken for this header: use a smaller file`);
}
