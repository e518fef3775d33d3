import type { CampaignMedia, MediaIdSource } from '../campaigns/media/campaign-media.js';
import { MediaUploadClient } from '../cloud-api/media-upload-client.js';
import type { Config } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import { MediaFetcher } from '../media/media-fetch.js';
import { MediaPreparer, type MediaUploader } from '../media/media-preparer.js';
import { MediaSourceReader } from '../media/media-source-reader.js';
import type { RedisClient } from '../redis/key-scope.js';
import { RedisMediaIds } from '../redis/media/redis-media-ids.js';

/** An upload waits for Meta to process up to 100 MB before it answers: more than a send's timeout. */
const UPLOAD_TIMEOUT_MS = 120_000;

/**
 * The media of campaigns sent by ID, from this process's configuration: links fetched as
 * MEDIA_ALLOW_PRIVATE_HOSTS allows, uploads through the Cloud API with the access token, IDs
 * kept in Redis under QUEUE_PREFIX. The producer prepares a campaign's media on its numbers;
 * a worker asks it for each send's media ID.
 */
export function openCampaignMedia(
  config: Pick<Config, 'api' | 'accessToken' | 'queuePrefix' | 'media'>,
  redis: RedisClient,
  phoneNumberIds: readonly string[],
): CampaignMedia & MediaIdSource {
  const fetcher = new MediaFetcher({ allowPrivateHosts: config.media.allowPrivateHosts });
  const token = config.accessToken;
  const client =
    token === undefined
      ? undefined
      : new MediaUploadClient({
          baseUrl: config.api.baseUrl,
          apiVersion: config.api.version,
          accessToken: token,
          timeoutMs: UPLOAD_TIMEOUT_MS,
        });
  const uploader: MediaUploader = client ?? {
    uploadMedia: () => {
      throw new AppError(
        'CONFIG_INVALID',
        'media headers are uploaded through the Cloud API: set WHATSAPP_ACCESS_TOKEN, or send with --media-by link',
      );
    },
  };
  const preparer = new MediaPreparer({
    phoneNumberIds,
    reader: new MediaSourceReader(fetcher),
    uploader,
    ids: new RedisMediaIds(redis, config.queuePrefix),
  });
  return {
    prepare: (source, format, options) => preparer.prepare(source, format, options),
    mediaIdFor: (phoneNumberId, source, format) => preparer.mediaIdFor(phoneNumberId, source, format),
    close: async () => {
      await Promise.all([fetcher.close(), client?.close()]);
    },
  };
}
