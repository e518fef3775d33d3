import type { AsyncFailure } from './async-failures.js';
import { GraphRejection } from './graph-error.js';
import { INVALID, rejectUnknownKeys, type JsonObject } from './json-checks.js';
import type { MediaLookup, StoredMedia } from './media-store.js';

/**
 * A media object as a send carries it, in a template's media header or in an image, video,
 * document or audio message: exactly one of `link` (Meta fetches it) or `id` (an upload),
 * plus the keys the place allows (a caption, a filename …), each checked by the caller.
 */
export function readMediaObject(media: JsonObject, where: string, keys: ReadonlySet<string>, lookup: MediaIds | undefined): void {
  rejectUnknownKeys(media, keys, where);
  const { link, id } = media;
  if (link === undefined && id === undefined) throw GraphRejection.missing(`${where}.link or ${where}.id`);
  if (link !== undefined && id !== undefined) {
    throw new GraphRejection(INVALID, `Parameter ${where} must have either link or id, not both`);
  }
  if (link !== undefined && !isWebUrl(link)) {
    throw new GraphRejection(INVALID, `Parameter ${where}.link must be an http or https URL`);
  }
  if (id !== undefined && (typeof id !== 'string' || id === '')) {
    throw new GraphRejection(INVALID, `Parameter ${where}.id must be a non-empty string`);
  }
  if (typeof id === 'string' && lookup !== undefined && !lookup.has(id)) lookup.noteUnknown?.(id);
  const { caption, filename } = media;
  if (caption !== undefined && (typeof caption !== 'string' || caption.length > MAX_CAPTION)) {
    throw new GraphRejection(INVALID, `Parameter ${where}.caption must be a string of at most ${MAX_CAPTION} characters`);
  }
  if (filename !== undefined && typeof filename !== 'string') {
    throw new GraphRejection(INVALID, `Parameter ${where}.filename must be a string`);
  }
}

/** "Maximum 1024 characters" (Meta's image, video and document message pages). */
export const MAX_CAPTION = 1024;

/**
 * What a send's media IDs are checked against. An ID that names no upload is not refused at
 * the send: Meta takes the message and fetches its media afterwards, so a medium it cannot use
 * comes back as 131053 in a `failed` status (reference cloud-api-2026.md "Media by ID": fetch
 * failures "come back as 131053 in failed status webhooks"; Meta's pages give no other answer
 * for an unknown or expired ID). `noteUnknown` hears of each such ID.
 */
export interface MediaIds extends MediaLookup {
  noteUnknown?(id: string): void;
}

/**
 * The uploads one send may name: those made on the sending number (`POST /{phone-number-id}/media`)
 * and still kept (30 days, media page). Each ID naming none is remembered, and the send is
 * then reported `failed` with 131053 (`failure()`).
 */
export class SenderMedia implements MediaIds {
  private readonly unknown: string[] = [];

  constructor(
    private readonly store: { get(id: string): Pick<StoredMedia, 'phoneNumberId'> | undefined },
    private readonly phoneNumberId: string,
  ) {}

  has(id: string): boolean {
    return this.store.get(id)?.phoneNumberId === this.phoneNumberId;
  }

  noteUnknown(id: string): void {
    this.unknown.push(id);
  }

  /** The failure the send's status webhook reports, or undefined when every ID named an upload. */
  failure(): AsyncFailure | undefined {
    const id = this.unknown[0];
    if (id === undefined) return undefined;
    const details =
      `Unable to upload the media used in the message: media ID ${id} names no upload of this phone number ` +
      '(never uploaded, deleted, or older than 30 days).';
    return { code: 131053, details, cause: 'unknownMedia' };
  }
}

/**
 * Meta fetches media links over HTTP or HTTPS (reference cloud-api.md line 122, MediaObject.link
 * "HTTP/HTTPS only" in openapi/business-messaging-api_v23.0.yaml line 1876), so both are taken.
 */
function isWebUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
