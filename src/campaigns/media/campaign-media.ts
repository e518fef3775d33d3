import type { MediaFormat } from '../../media/media-formats.js';
import type { MediaProblem } from '../../media/media-problem.js';
import type { MediaSource } from '../../media/media-source.js';
import type { SendPlan } from '../send-plan.js';

/**
 * What the producer asks of the media of one campaign (src/media/media-preparer.ts
 * implements it): each distinct source read, checked and, unless `upload` is false (a dry run),
 * uploaded on the campaign's number once; asking again costs nothing.
 */
export interface CampaignMedia {
  prepare(source: MediaSource, format: MediaFormat, options: { upload: boolean }): Promise<{ ok: true } | MediaProblem>;
  close(): Promise<void>;
}

/** What the worker asks as it sends: the media ID of a source on its number (uploaded anew when missing or due for renewal). */
export interface MediaIdSource {
  mediaIdFor(phoneNumberId: string, source: MediaSource, format: MediaFormat): Promise<{ ok: true; id: string } | MediaProblem>;
}

/** A header's media kind as Meta's media page names its format. */
export function mediaFormatOf(kind: 'image' | 'video' | 'document' | 'gif'): MediaFormat {
  return kind.toUpperCase() as MediaFormat;
}

/** A row's media value as a source: the link, or with `--header-file-column` the file's path (absolute, as the producer stored it). */
export function mediaSourceOf(value: string, fromFile: boolean): MediaSource {
  return fromFile ? { kind: 'file', path: value } : { kind: 'url', url: value };
}

/** The media one row sends, by where it goes: the message's header (the row's header link) and each card's. */
export function rowMedia(
  plan: SendPlan,
  values: readonly string[],
  headerLink: string | undefined,
): { source: MediaSource; format: MediaFormat; card: number | undefined }[] {
  const media: { source: MediaSource; format: MediaFormat; card: number | undefined }[] = [];
  if (plan.headerMedia !== undefined && headerLink !== undefined) {
    media.push({
      source: mediaSourceOf(headerLink, plan.headerMedia.from === 'file'),
      format: mediaFormatOf(plan.headerMedia.format),
      card: undefined,
    });
  }
  plan.slots.forEach((slot, i) => {
    const value = values[i];
    if (slot.kind === 'media' && value !== undefined) {
      media.push({ source: mediaSourceOf(value, false), format: mediaFormatOf(slot.media ?? 'image'), card: slot.card });
    }
  });
  return media;
}
