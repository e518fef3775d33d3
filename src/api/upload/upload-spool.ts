import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkWritableDir } from '../../campaigns/ingest/rejects-file.js';
import { AppError } from '../../errors/app-error.js';

/** The name an upload gets when its sender gives none (a `text/csv` body): the campaign is named after it unless the spec names it. */
export const DEFAULT_UPLOAD_NAME = 'upload.csv';
/** Longest file name kept from an upload (most file systems take 255 bytes). */
const MAX_FILE_NAME_BYTES = 200;

/**
 * A directory of its own for one upload. The CSV is written there under the name its sender
 * gave it, so the campaign's default name and its source file are the sender's, never a
 * random spool name; remove() deletes the directory and what is in it.
 */
export class UploadSpool {
  readonly dir: string;
  #path: string | undefined;

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** A spool below `root` (REPORTS_DIR/.uploads: the service's own disk, which it can write), made if missing. */
  static async open(root: string): Promise<UploadSpool> {
    await checkWritableDir(root, 'REPORTS_DIR/.uploads');
    return new UploadSpool(await mkdtemp(join(root, 'campaign-upload-')));
  }

  /** Where the upload was written; undefined before write(). */
  get path(): string | undefined {
    return this.#path;
  }

  /**
   * Streams `body` to the spool file named `fileName`, counting bytes: past `maxBytes`
   * reading stops and the file is deleted (API_UPLOAD_TOO_LARGE). `truncated`: the source
   * itself stopped at its own limit (busboy's fileSize), which is the same refusal.
   */
  async write(body: Readable, fileName: string | undefined, maxBytes: number, truncated?: () => boolean): Promise<string> {
    const path = join(this.dir, safeFileName(fileName));
    this.#path = path;
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) done(tooLarge(maxBytes));
        else done(null, chunk);
      },
    });
    // Piped, not in the pipeline: a refusal stops reading without destroying the request, so its answer still goes out.
    const failed = (error: Error) => counter.destroy(error);
    const closed = () => {
      if (!body.readableEnded)
        counter.destroy(new AppError('API_REQUEST_INVALID', 'The upload ended before its end (the client went away)'));
    };
    body.on('error', failed).on('close', closed);
    body.pipe(counter);
    try {
      await pipeline(counter, createWriteStream(path));
    } catch (error) {
      body.unpipe(counter);
      await rm(path, { force: true });
      throw error;
    } finally {
      body.off('error', failed).off('close', closed);
    }
    if (truncated?.() === true) {
      await rm(path, { force: true });
      throw tooLarge(maxBytes);
    }
    return path;
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

export function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'API_UPLOAD_TOO_LARGE',
    `The upload is larger than API_MAX_UPLOAD_BYTES (${maxBytes} bytes); split the file or raise the setting. Nothing was created.`,
  );
}

/**
 * The sender's file name as one path segment: no directory part, no control character, not
 * empty or a dot name, at most MAX_FILE_NAME_BYTES (the campaign's name is cut to fewer anyway).
 */
export function safeFileName(name: string | undefined): string {
  const flat = basename((name ?? '').replace(/\\/g, '/'));
  // eslint-disable-next-line no-control-regex
  const base = flat.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (base === '' || /^\.+$/.test(base)) return DEFAULT_UPLOAD_NAME;
  let cut = base;
  while (Buffer.byteLength(cut) > MAX_FILE_NAME_BYTES) cut = [...cut].slice(0, -1).join('');
  return cut;
}
