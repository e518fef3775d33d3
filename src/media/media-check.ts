import { createHash } from 'node:crypto';
import { FORMAT_TYPES, STATIC_STICKER_MAX_BYTES, formatSize, typeNamesOf, type MediaFormat } from './media-formats.js';
import { mediaProblem, type MediaProblem } from './media-problem.js';
import { sniffMediaType } from './media-sniff.js';

/** Media that a header of its format can carry: the type to upload it as, and its digest. */
export interface CheckedMedia {
  ok: true;
  /** The type read from the bytes (never only the declared one): what the upload's `type` says. */
  mimeType: string;
  /** Hex SHA-256 of the bytes: tells a changed file at the same URL from the one uploaded before. */
  sha256: string;
  size: number;
}

export type MediaCheckResult = CheckedMedia | MediaProblem;

export interface MediaToCheck {
  bytes: Uint8Array;
  /** The Content-Type the server sent (or the type a local file's extension gives); reported, never trusted alone. */
  declaredType: string | undefined;
  /** How a detail names the media: a URL without its query (describeUrl), or a file's path. */
  what: string;
}

/**
 * Checks media against the header format's types and Meta's limits. The bytes decide the type
 * (media-sniff.ts); a wrong Content-Type is tolerated when the bytes are right, since the
 * upload is labelled with the type read from them. `maxBytes` lowers the limit (tests, a
 * stricter policy); it never raises Meta's.
 */
export function checkMedia(media: MediaToCheck, format: MediaFormat, options: { maxBytes?: number } = {}): MediaCheckResult {
  const { bytes, what } = media;
  const takes = `a ${format} header takes ${typeNamesOf(format)}`;
  if (bytes.length === 0)
    return mediaProblem('MEDIA_TYPE_MISMATCH', `${what} is empty (0 bytes); ${takes}: give the link to the file itself`);
  const sniffed = sniffMediaType(bytes);
  const accepted = FORMAT_TYPES[format].find((type) => type.mimeType === sniffed?.mimeType);
  if (sniffed === undefined || accepted === undefined) {
    const is = sniffed?.what ?? 'not a file type WhatsApp takes (its first bytes match no known format)';
    return mediaProblem('MEDIA_TYPE_MISMATCH', `${what} is ${is}${servedAs(media.declaredType)}; ${takes}: ${fixFor(format)}`);
  }
  const metaLimit = sniffed.mimeType === 'image/webp' && sniffed.animated !== true ? STATIC_STICKER_MAX_BYTES : accepted.maxBytes;
  const limit = Math.min(metaLimit, options.maxBytes ?? metaLimit);
  if (bytes.length > limit) {
    return mediaProblem(
      'MEDIA_TOO_LARGE',
      `${what} is ${formatSize(bytes.length)} (${bytes.length} bytes); a ${accepted.name} file for a ${format} header may be at most ` +
        `${formatSize(limit)} (${limit} bytes): compress it or reduce its resolution, then link the smaller file`,
    );
  }
  return { ok: true, mimeType: accepted.mimeType, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
}

function servedAs(declared: string | undefined): string {
  return declared === undefined || declared.trim() === '' ? '' : ` (served as ${declared.split(';')[0]?.trim().slice(0, 100)})`;
}

function fixFor(format: MediaFormat): string {
  switch (format) {
    case 'IMAGE':
      return 'link a JPEG or PNG file (8-bit RGB or RGBA)';
    case 'VIDEO':
      return 'link an MP4 (H.264 video, AAC audio) or 3GPP file';
    case 'GIF':
      return 'convert the animation to an MP4 file (H.264) and link that';
    case 'STICKER':
      return 'link a WebP file (512×512)';
    case 'DOCUMENT':
      return 'link the document itself (PDF, Office or .txt), not a page that shows it';
  }
}
