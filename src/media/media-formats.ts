/**
 * The files each header format takes and the largest of each, from the "Supported media types"
 * table of Meta's media page
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-phone-numbers/media).
 * A MiB is taken for Meta's "MB" (and a KiB for "KB"), the larger reading, as the sandbox does
 * (src/sandbox/media-types.ts), so a file Meta would take is never refused here; the upload's
 * answer stays the last word.
 *
 * `GIF` is the Marketing Messages API's animated header: Meta plays it from an MP4 file, not a
 * .gif, and the header's file may be at most 3.5 MB (Marketing Messages API pages, "GIF
 * headers"). `STICKER` is a WebP file: 500 KB animated, 100 KB static.
 * The template schema's header formats (IMAGE, VIDEO, DOCUMENT, GIF) are a subset of these.
 */
export type MediaFormat = 'IMAGE' | 'VIDEO' | 'DOCUMENT' | 'STICKER' | 'GIF';

export interface AcceptedType {
  mimeType: string;
  /** How an operator names it: "JPEG", "MP4". */
  name: string;
  maxBytes: number;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** A static (not animated) sticker's limit; the table's WebP entry is the animated one's. */
export const STATIC_STICKER_MAX_BYTES = 100 * KIB;

const document = (mimeType: string, name: string): AcceptedType => ({ mimeType, name, maxBytes: 100 * MIB });

export const FORMAT_TYPES: Readonly<Record<MediaFormat, readonly AcceptedType[]>> = {
  IMAGE: [
    { mimeType: 'image/jpeg', name: 'JPEG', maxBytes: 5 * MIB },
    { mimeType: 'image/png', name: 'PNG', maxBytes: 5 * MIB },
  ],
  VIDEO: [
    { mimeType: 'video/mp4', name: 'MP4', maxBytes: 16 * MIB },
    { mimeType: 'video/3gpp', name: '3GPP', maxBytes: 16 * MIB },
  ],
  DOCUMENT: [
    document('application/pdf', 'PDF'),
    document('application/msword', 'Word (.doc)'),
    document('application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'Word (.docx)'),
    document('application/vnd.ms-excel', 'Excel (.xls)'),
    document('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'Excel (.xlsx)'),
    document('application/vnd.ms-powerpoint', 'PowerPoint (.ppt)'),
    document('application/vnd.openxmlformats-officedocument.presentationml.presentation', 'PowerPoint (.pptx)'),
    document('text/plain', 'plain text (.txt)'),
  ],
  STICKER: [{ mimeType: 'image/webp', name: 'WebP', maxBytes: 500 * KIB }],
  GIF: [{ mimeType: 'video/mp4', name: 'MP4', maxBytes: 3.5 * MIB }],
};

/** The largest file the format takes of any type: where a download stops reading. */
export function maxBytesOfFormat(format: MediaFormat): number {
  return Math.max(...FORMAT_TYPES[format].map((type) => type.maxBytes));
}

/** "JPEG or PNG", "PDF, Word (.doc), … or plain text (.txt)". */
export function typeNamesOf(format: MediaFormat): string {
  const names = FORMAT_TYPES[format].map((type) => type.name);
  return names.length === 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1] ?? ''}`;
}

/** 5242880 → "5 MB", 3670016 → "3.5 MB", 102400 → "100 KB": the figures of Meta's table. */
export function formatSize(bytes: number): string {
  if (bytes >= MIB) return `${Math.round((bytes / MIB) * 10) / 10} MB`;
  if (bytes >= KIB) return `${Math.round((bytes / KIB) * 10) / 10} KB`;
  return `${bytes} bytes`;
}

/** The extension a file of this type is named with, for the upload's file name. */
const EXTENSIONS: ReadonlyMap<string, string> = new Map([
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['png', 'image/png'],
  ['webp', 'image/webp'],
  ['mp4', 'video/mp4'],
  ['3gp', 'video/3gpp'],
  ['pdf', 'application/pdf'],
  ['doc', 'application/msword'],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['xls', 'application/vnd.ms-excel'],
  ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['ppt', 'application/vnd.ms-powerpoint'],
  ['pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  ['txt', 'text/plain'],
]);

/** `banner.JPG` → image/jpeg; undefined for an extension not in the table. */
export function mimeTypeOfName(name: string): string | undefined {
  const extension = /\.([A-Za-z0-9]{1,5})$/.exec(name)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : EXTENSIONS.get(extension);
}

export function extensionOf(mimeType: string): string | undefined {
  for (const [extension, type] of EXTENSIONS) if (type === mimeType) return extension;
  return undefined;
}
