/**
 * The files Meta takes at `POST /{phone-number-id}/media`, with the largest size of each, as
 * the "Supported media types" table of Meta's media page lists them
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-phone-numbers/media).
 * A MiB is taken for Meta's "MB", the larger reading, so the sandbox never refuses a file
 * Meta would take. Meta's further conditions (8-bit RGB images, H.264 video, OPUS-only Ogg)
 * need the file decoded: the sandbox checks the declared type and size only.
 */
const MIB = 1024 * 1024;
const KIB = 1024;

export const MAX_MEDIA_BYTES = 100 * MIB;

const MAX_BYTES_BY_TYPE: ReadonlyMap<string, number> = new Map([
  ['audio/aac', 16 * MIB],
  ['audio/amr', 16 * MIB],
  ['audio/mpeg', 16 * MIB],
  ['audio/mp4', 16 * MIB],
  ['audio/ogg', 16 * MIB],
  ['text/plain', MAX_MEDIA_BYTES],
  ['application/vnd.ms-excel', MAX_MEDIA_BYTES],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', MAX_MEDIA_BYTES],
  ['application/msword', MAX_MEDIA_BYTES],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', MAX_MEDIA_BYTES],
  ['application/vnd.ms-powerpoint', MAX_MEDIA_BYTES],
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation', MAX_MEDIA_BYTES],
  ['application/pdf', MAX_MEDIA_BYTES],
  ['image/jpeg', 5 * MIB],
  ['image/png', 5 * MIB],
  // Stickers: 500 KB animated, 100 KB static; telling them apart needs the file decoded.
  ['image/webp', 500 * KIB],
  ['video/3gpp', 16 * MIB],
  ['video/mp4', 16 * MIB],
]);

/** `image/jpeg; charset=…` → `image/jpeg`: the table is by bare type. */
export function bareMimeType(value: string): string {
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

/** The largest file of this type Meta takes, or undefined for a type it does not take. */
export function maxBytesOf(mimeType: string): number | undefined {
  return MAX_BYTES_BY_TYPE.get(bareMimeType(mimeType));
}

export const SUPPORTED_MIME_TYPES: readonly string[] = [...MAX_BYTES_BY_TYPE.keys()];
