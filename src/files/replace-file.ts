import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `path` through a temporary file beside it (same directory, so the rename cannot
 * cross filesystems) and renames it into place only once `write` has finished. A reader never
 * sees half a file, and a failure or a stop leaves the file there before as it was, with no
 * temporary file behind. `write` must create the temporary file itself (e.g. flags 'wx').
 */
export async function replaceFile<T>(path: string, write: (temporaryPath: string) => Promise<T>): Promise<T> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const result = await write(temporary);
    await rename(temporary, path);
    return result;
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}
