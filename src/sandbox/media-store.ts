import { createHash, randomInt } from 'node:crypto';

/**
 * The media uploaded to the sandbox (`POST /{phone-number-id}/media`), in memory. Meta keeps
 * an upload for 30 days unless it is deleted first ("Media IDs returned by the API expire
 * after 30 days", media page); the sandbox also drops its oldest uploads once they hold more
 * than `maxBytes` or number more than `maxFiles`, so a long-running sandbox stays small. A
 * send naming a media ID asks `has` (media-object.ts).
 */
export const MEDIA_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const MAX_STORED_BYTES = 256 * 1024 * 1024;
const MAX_STORED_FILES = 10_000;

export interface StoredMedia {
  /** Digits, as Meta's media IDs are (`1037543291543636`). */
  id: string;
  /** The number it was uploaded on (GET/DELETE `?phone_number_id=` must name it). */
  phoneNumberId: string;
  mimeType: string;
  /** Hex SHA-256 of the file, as GET /{media-id} reports it. */
  sha256: string;
  fileSize: number;
  bytes: Buffer;
  uploadedAt: number;
}

/** What validation needs to know of the store: whether a media ID names an upload. */
export interface MediaLookup {
  has(id: string): boolean;
}

export class MediaStore implements MediaLookup {
  /** Insertion order is upload order: the first entry is the oldest. */
  private readonly media = new Map<string, StoredMedia>();
  private storedBytes = 0;
  // 16 digits, random per sandbox, then counting: unique in the process, never a small number.
  private nextId = 1_000_000_000_000_000 + randomInt(0, 2 ** 47);

  constructor(
    private readonly now: () => number,
    private readonly limits = { maxBytes: MAX_STORED_BYTES, maxFiles: MAX_STORED_FILES },
  ) {}

  /** Uploads made on each number since the sandbox started (none forgotten when files are dropped for room). */
  readonly uploadsByNumber = new Map<string, number>();

  add(phoneNumberId: string, mimeType: string, bytes: Buffer): StoredMedia {
    this.uploadsByNumber.set(phoneNumberId, (this.uploadsByNumber.get(phoneNumberId) ?? 0) + 1);
    const stored: StoredMedia = {
      id: String(this.nextId++),
      phoneNumberId,
      mimeType,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      fileSize: bytes.length,
      bytes,
      uploadedAt: this.now(),
    };
    this.makeRoom(bytes.length);
    this.media.set(stored.id, stored);
    this.storedBytes += bytes.length;
    return stored;
  }

  /** The upload, unless it was never made, was deleted, expired or was dropped for room. */
  get(id: string): StoredMedia | undefined {
    const stored = this.media.get(id);
    if (stored === undefined) return undefined;
    if (this.now() - stored.uploadedAt < MEDIA_TTL_MS) return stored;
    this.delete(id);
    return undefined;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  delete(id: string): boolean {
    const stored = this.media.get(id);
    if (stored === undefined) return false;
    this.media.delete(id);
    this.storedBytes -= stored.fileSize;
    return true;
  }

  private makeRoom(incoming: number): void {
    for (const id of this.media.keys()) {
      if (this.storedBytes + incoming <= this.limits.maxBytes && this.media.size < this.limits.maxFiles) return;
      this.delete(id);
    }
  }
}
