import { CloudApiError } from '../cloud-api/cloud-api-errors.js';
import { checkMedia, type CheckedMedia } from './media-check.js';
import { maxBytesOfFormat, type MediaFormat } from './media-formats.js';
import { DEFAULT_MEDIA_ID_RENEW_AFTER_MS, type MediaIdRecord, type MediaIds } from './media-ids.js';
import { mediaProblem, type MediaProblem } from './media-problem.js';
import type { MediaReader } from './media-read.js';
import { describeSource, mediaSourceKey, uploadFileName, type MediaSource } from './media-source.js';
import { sharedPromise } from './shared-promise.js';

/** Uploads a file on a number and answers its media ID (src/cloud-api/media-upload-client.ts; tests give fakes). */
export interface MediaUploader {
  uploadMedia(phoneNumberId: string, bytes: Uint8Array, mimeType: string, filename: string): Promise<string>;
}

export interface MediaPreparerOptions {
  /** The campaign's sending numbers: each gets its own upload (a media ID is valid only on the number it was uploaded on). */
  phoneNumberIds: readonly string[];
  reader: MediaReader;
  uploader: MediaUploader;
  ids: MediaIds;
  /** Lower size limits per format than Meta's (tests, a stricter policy); never higher. */
  maxBytes?: Partial<Record<MediaFormat, number>>;
  /** How long an ID this process uploaded or read is used without asking the store again (default 25 days, as the store). */
  renewAfterMs?: number;
  /** How long mediaIdFor answers a media's problem again without reading it anew (default 60 s). */
  problemMemoryMs?: number;
  now?: () => number;
}

/** Media checked, and uploaded on every number of the campaign unless it was a dry run (`ids` then empty). */
export interface PreparedMedia {
  ok: true;
  /** Phone-number ID → media ID. */
  ids: ReadonlyMap<string, string>;
  sourceKey: string;
  sha256: string;
  mimeType: string;
  size: number;
}

export type PrepareResult = PreparedMedia | MediaProblem;
export type MediaIdResult = { ok: true; id: string } | MediaProblem;

/** Media read and checked, ready to upload. */
interface ReadMedia extends CheckedMedia {
  sourceKey: string;
  bytes: Buffer;
  filename: string;
}

/** Meta's code for an upload it refused for the file itself (its type or size): the media's fault, not the moment's. */
const MEDIA_REFUSED = 131053;

/**
 * The header media of one campaign, read once and uploaded once per number. The producer calls
 * `prepare` for each distinct source (a campaign-wide link, or each row's): it is read and
 * checked once, then uploaded on each number that has no fresh ID for the same content in the
 * store, and the answer is kept for the campaign's life, so asking again costs nothing;
 * concurrent asks share one promise. A dry run (`upload: false`) only reads and checks.
 * The worker calls `mediaIdFor` as it sends: the stored ID, or, when it is missing or due for
 * renewal, the media read and uploaded again (once, however many sends wait for it).
 * Bytes are held only while they are being checked and uploaded.
 */
export class MediaPreparer {
  readonly #options: MediaPreparerOptions;
  readonly #now: () => number;
  readonly #prepared = new Map<string, Promise<PrepareResult>>();
  readonly #reads = new Map<string, Promise<ReadMedia | MediaProblem>>();
  readonly #uploading = new Map<string, Promise<string | MediaProblem>>();
  readonly #renewals = new Map<string, Promise<MediaIdResult>>();
  readonly #known = new Map<string, MediaIdRecord>();
  readonly #problems = new Map<string, { problem: MediaProblem; at: number }>();
  #fetches = 0;
  #uploads = 0;

  constructor(options: MediaPreparerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Reads (a download or a local file) and uploads begun by this preparer. */
  get counts(): { fetches: number; uploads: number } {
    return { fetches: this.#fetches, uploads: this.#uploads };
  }

  prepare(source: MediaSource, format: MediaFormat, options: { upload: boolean }): Promise<PrepareResult> {
    const sourceKey = mediaSourceKey(source);
    const key = `${sourceKey}\n${format}\n${options.upload ? 'upload' : 'check'}`;
    return sharedPromise(this.#prepared, key, () => this.#prepare(source, format, sourceKey, options.upload), true);
  }

  /** The media ID to send on this number: the stored one, or the media read and uploaded anew when it is missing or old. */
  async mediaIdFor(phoneNumberId: string, source: MediaSource, format: MediaFormat): Promise<MediaIdResult> {
    const sourceKey = mediaSourceKey(source);
    const known = await this.#knownId(phoneNumberId, sourceKey);
    if (known !== undefined) return { ok: true, id: known.id };
    const problemKey = `${sourceKey}\n${format}`;
    const recent = this.#problems.get(problemKey);
    // Many sends share a media: one that cannot be read is not read again for each of them.
    if (recent !== undefined && this.#now() - recent.at < (this.#options.problemMemoryMs ?? 60_000)) return recent.problem;
    const key = `${phoneNumberId}\n${sourceKey}\n${format}`;
    const result = await sharedPromise(this.#renewals, key, () => this.#renew(phoneNumberId, source, format, sourceKey), false);
    if (result.ok) this.#problems.delete(problemKey);
    else this.#problems.set(problemKey, { problem: result, at: this.#now() });
    return result;
  }

  async #prepare(source: MediaSource, format: MediaFormat, sourceKey: string, upload: boolean): Promise<PrepareResult> {
    const read = await this.#read(source, format, sourceKey);
    if (!read.ok) return read;
    const ids = new Map<string, string>();
    if (upload) {
      const numbers = this.#options.phoneNumberIds;
      const results = await Promise.all(numbers.map((number) => this.#idOnNumber(number, read)));
      for (const [index, result] of results.entries()) {
        if (typeof result !== 'string') return result;
        ids.set(numbers[index] ?? '', result);
      }
    }
    return { ok: true, ids, sourceKey, sha256: read.sha256, mimeType: read.mimeType, size: read.size };
  }

  async #renew(phoneNumberId: string, source: MediaSource, format: MediaFormat, sourceKey: string): Promise<MediaIdResult> {
    const read = await this.#read(source, format, sourceKey);
    if (!read.ok) return read;
    const id = await this.#upload(phoneNumberId, read);
    return typeof id === 'string' ? { ok: true, id } : id;
  }

  /** A number's ID for this content: the stored one when it is fresh and of the same bytes, else a new upload. */
  async #idOnNumber(phoneNumberId: string, read: ReadMedia): Promise<string | MediaProblem> {
    const known = await this.#knownId(phoneNumberId, read.sourceKey);
    if (known?.sha256 === read.sha256) return known.id;
    return this.#upload(phoneNumberId, read);
  }

  /** Read and checked once for everyone asking meanwhile (the bytes are dropped once the askers are done). */
  #read(source: MediaSource, format: MediaFormat, sourceKey: string): Promise<ReadMedia | MediaProblem> {
    return sharedPromise(this.#reads, `${sourceKey}\n${format}`, () => this.#readAndCheck(source, format, sourceKey), false);
  }

  async #readAndCheck(source: MediaSource, format: MediaFormat, sourceKey: string): Promise<ReadMedia | MediaProblem> {
    this.#fetches++;
    const lower = this.#options.maxBytes?.[format];
    const limit = Math.min(maxBytesOfFormat(format), lower ?? Infinity);
    const read = await this.#options.reader.read(source, limit);
    if (!read.ok) return read;
    const what = describeSource(source);
    const checked = checkMedia(
      { bytes: read.bytes, declaredType: read.declaredType, what },
      format,
      lower === undefined ? {} : { maxBytes: lower },
    );
    if (!checked.ok) return checked;
    return { ...checked, sourceKey, bytes: read.bytes, filename: uploadFileName(source, checked.mimeType) };
  }

  #upload(phoneNumberId: string, read: ReadMedia): Promise<string | MediaProblem> {
    const key = `${phoneNumberId}\n${read.sourceKey}\n${read.sha256}`;
    return sharedPromise(this.#uploading, key, () => this.#uploadOnce(phoneNumberId, read), false);
  }

  async #uploadOnce(phoneNumberId: string, read: ReadMedia): Promise<string | MediaProblem> {
    this.#uploads++;
    let id: string;
    try {
      id = await this.#options.uploader.uploadMedia(phoneNumberId, read.bytes, read.mimeType, read.filename);
    } catch (error) {
      // Anything else (the token, throttling, no answer) is the caller's to handle as any Graph error.
      if (!(error instanceof CloudApiError) || error.metaCode !== MEDIA_REFUSED) throw error;
      return mediaProblem(
        'MEDIA_UPLOAD_REFUSED',
        `the Cloud API refused ${read.filename} (${read.mimeType}, ${read.size} bytes) on number ${phoneNumberId}: ` +
          `${error.details ?? 'code 131053'}; link a file of a type and size Meta takes`,
      );
    }
    const record: MediaIdRecord = { id, uploadedAt: this.#now(), sha256: read.sha256 };
    await this.#options.ids.put(phoneNumberId, read.sourceKey, record);
    this.#known.set(`${phoneNumberId}\n${read.sourceKey}`, record);
    return id;
  }

  /** A fresh ID: this process's own when it has one, else the store's (which only gives fresh ones). */
  async #knownId(phoneNumberId: string, sourceKey: string): Promise<MediaIdRecord | undefined> {
    const key = `${phoneNumberId}\n${sourceKey}`;
    const local = this.#known.get(key);
    const renewAfterMs = this.#options.renewAfterMs ?? DEFAULT_MEDIA_ID_RENEW_AFTER_MS;
    if (local !== undefined && this.#now() - local.uploadedAt < renewAfterMs) return local;
    const stored = await this.#options.ids.get(phoneNumberId, sourceKey);
    if (stored === undefined) this.#known.delete(key);
    else this.#known.set(key, stored);
    return stored;
  }
}
