import { GraphRejection } from './graph-error.js';
import { INVALID, requireObject } from './json-checks.js';
import { readMediaObject, type MediaIds } from './media-object.js';

/**
 * The media messages the sandbox takes: image, video, document and audio, each an uploaded
 * media `id` or a `link`, with the keys Meta's page for the type lists
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/messages/image-messages,
 * …/video-messages, …/document-messages, …/audio-messages): a caption of at most 1024
 * characters on image, video and document, a `filename` on a document, `voice` on audio.
 * Like a text, a media message is free-form: outside the user's service window Meta accepts
 * it and reports it `failed` 131047 (the runtime's business, not validation's). An `id` naming
 * no upload of the sending number is accepted too and reported `failed` 131053 (media-object.ts).
 */
export const MEDIA_MESSAGE_TYPES = ['image', 'video', 'document', 'audio'] as const;
export type MediaMessageType = (typeof MEDIA_MESSAGE_TYPES)[number];

const KEYS: Readonly<Record<MediaMessageType, ReadonlySet<string>>> = {
  image: new Set(['id', 'link', 'caption']),
  video: new Set(['id', 'link', 'caption']),
  document: new Set(['id', 'link', 'caption', 'filename']),
  audio: new Set(['id', 'link', 'voice']),
};

export function isMediaMessageType(type: string): type is MediaMessageType {
  return (MEDIA_MESSAGE_TYPES as readonly string[]).includes(type);
}

export function checkMediaMessage(type: MediaMessageType, value: unknown, media: MediaIds | undefined): void {
  const object = requireObject(value, type);
  readMediaObject(object, type, KEYS[type], media);
  const voice = object['voice'];
  if (voice !== undefined && typeof voice !== 'boolean') throw new GraphRejection(INVALID, 'Parameter audio.voice must be a boolean');
}
