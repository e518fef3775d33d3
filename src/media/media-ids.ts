/**
 * The media IDs uploaded per phone number, by source (media-source.ts): what spares a campaign
 * an upload per row, and a later campaign an upload of a file already sent. An uploaded media
 * ID is good for 30 days at Meta ("Media IDs returned by the API expire after 30 days", media
 * page), so an ID is used only while younger than a renewal age (25 days by default), which
 * leaves every send that picked it up days to go; an older one is uploaded again.
 */
export const MEDIA_ID_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
export const DEFAULT_MEDIA_ID_RENEW_AFTER_MS = 25 * 24 * 60 * 60 * 1000;

export interface MediaIdRecord {
  /** The media ID Meta answered the upload with. */
  id: string;
  /** When it was uploaded (ms since the epoch). */
  uploadedAt: number;
  /** Hex SHA-256 of the bytes uploaded: a file changed at the same source is uploaded again. */
  sha256: string;
}

/** The port MediaPreparer stores IDs through; src/redis/media/redis-media-ids.ts implements it. */
export interface MediaIds {
  /** The record for this source on this number, only when younger than the renewal age; else undefined. */
  get(phoneNumberId: string, sourceKey: string): Promise<MediaIdRecord | undefined>;
  put(phoneNumberId: string, sourceKey: string, record: MediaIdRecord): Promise<void>;
}
