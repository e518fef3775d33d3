import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, rmdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkWritableDir } from '../../campaigns/ingest/rejects-file.js';
import { AppError } from '../../errors/app-error.js';
import { makeDirectory } from '../../files/make-directory.js';

/** The name an upload gets when its sender gives none (a `text/csv` body): the campaign is named after it unless the spec names it. */
export const DEFAULT_UPLOAD_NAME = 'upload.csv';
/** Longest file name kept from an upload (most file systems take 255 bytes). */
const MAX_FILE_NAME_BYTES = 200;

/** An upload written to the spool: where, and the SHA-256 of its bytes (what tells one upload from another). */
export interface SpooledFile {
  path: string;
  sha256: string;
}

/** Attempts to make a spool when a request ending at the same time removes the shared root. */
const OPEN_ATTEMPTS = 3;

/**
 * A directory of its own for one upload. The CSV is written there under the name its sender
 * gave it, so the campaign's default name and its source file are the sender's, never a
 * random spool name; remove() deletes the directory and what is in it, and the root when no
 * other upload is in it: a request leaves nothing behind.
 */
export class UploadSpool {
  readonly dir: string;
  readonly #root: string;
  #path: string | undefined;

  private constructor(root: string, dir: string) {
    this.#root = root;
    this.dir = dir;
  }

  /** A spool below `root` (REPORTS_DIR/.uploads: the service's own disk, which it can write), made if missing. */
  static async open(root: string): Promise<UploadSpool> {
    for (let attempt = 1; ; attempt++) {
      try {
        await makeDirectory(root);
        return new UploadSpool(root, await mkdtemp(join(root, 'campaign-upload-')));
      } catch (error) {
        // Another request's remove() took the empty root between the two calls: make it again.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt < OPEN_ATTEMPTS) continue;
        // Says why it cannot be written, as OUTPUT_UNWRITABLE.
        await checkWritableDir(root, 'REPORTS_DIR/.uploads');
        throw error;
      }
    }
  }

  /** Where the upload was written; undefined before write(). */
  get path(): string | undefined {
    return this.#path;
  }

  /**
   * Streams `body` to the spool file named `fileName`, counting bytes: past `maxBytes`
   * reading stops and the file is deleted (API_UPLOAD_TOO_LARGE). `truncated`: the source
   * itself stopped at its own limit (busboy's fileSize), which is the same refusal. The bytes
   * are hashed as they pass.
   */
  async write(body: Readable, fileName: string | undefined, maxBytes: number, truncated?: () => boolean): Promise<SpooledFile> {
    const path = join(this.dir, safeFileName(fileName));
    this.#path = path;
    let bytes = 0;
    const hash = createHash('sha256');
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) return done(tooLarge(maxBytes));
        hash.update(chunk);
        done(null, chunk);
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
    return { path, sha256: hash.digest('hex') };
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
    // Only an empty root goes (ENOTEMPTY while another upload is in it): open() makes it again.
    await rmdir(this.#root).catch(() => undefined);
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
