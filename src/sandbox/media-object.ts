import { GraphRejection } from './graph-error.js';
import { INVALID, rejectUnknownKeys, type JsonObject } from './json-checks.js';
import type { MediaLookup } from './media-store.js';

/**
 * A media object as a send carries it, in a template's media header or in an image, video,
 * document or audio message: exactly one of `link` (Meta fetches it) or `id` (an upload),
 * plus the keys the place allows (a caption, a filename …), each checked by the caller.
 */
export function readMediaObject(media: JsonObject, where: string, keys: ReadonlySet<string>, lookup: MediaLookup | undefined): void {
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
  if (typeof id === 'string' && lookup !== undefined && !lookup.has(id)) throw unknownMediaId(where);
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
 * A media ID that names no upload (never made, deleted, or past Meta's 30 days). Meta's
 * pages do not say how a send naming one is answered; the sandbox refuses it as Graph
 * refuses an ID parameter that names no object of its kind ("Param … is not a valid … ID"),
 * with 100, so a stale ID shows up at the send rather than as a message that never arrives.
 */
function unknownMediaId(where: string): GraphRejection {
  return new GraphRejection(INVALID, `Param ${where}.id is not a valid whatsapp business account media attachment ID`);
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
