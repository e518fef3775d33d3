import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { servedVersion, unknownPathError } from './api-versions.js';
import { unknownObjectError, type GraphErrorSpec } from './graph-error.js';
import type { StoredMedia } from './media-store.js';
import { MEDIA_MULTIPART_LIMITS, readMediaUpload } from './media-upload.js';
import { unknownNumberError } from './phone-numbers.js';
import { accessTokenParam, graphPaths, sendGraphError, urlPath, type VersionParams } from './route-support.js';
import type { SandboxRuntime } from './sandbox-runtime.js';

/**
 * Meta's media endpoints (media page,
 * https://developers.facebook.com/documentation/business-messaging/whatsapp/business-phone-numbers/media):
 * `POST /{phone-number-id}/media` uploads a file and answers `{id}`; `DELETE /{media-id}`
 * deletes it; the media URL that `GET /{media-id}` gives (mediaInfo, served by the object
 * route in phone-number-route.ts, the path being the same) downloads it, with the token, for
 * 5 minutes. `?phone_number_id=` on GET and DELETE must name the number the media was
 * uploaded on.
 */
type Query = Record<string, unknown>;

/** "The URL is only valid for 5 minutes" (media page). */
const URL_TTL_MS = 5 * 60 * 1000;
const DOWNLOAD_PATH = '/whatsapp_business/attachments/';

export function registerMediaRoutes(app: FastifyInstance, runtime: SandboxRuntime): void {
  // Multipart is parsed in this scope only: every other route keeps the server's own JSON handling.
  void app.register(async (scope) => {
    await scope.register(multipart, { limits: MEDIA_MULTIPART_LIMITS });
    for (const path of graphPaths('/:phoneNumberId/media')) {
      scope.post<{ Params: VersionParams & { phoneNumberId: string } }>(path, async (request, reply) => {
        const refused = refuseRequest(request, reply, runtime);
        if (refused !== undefined) return refused;
        const { phoneNumberId } = request.params;
        if (!runtime.numbers.has(phoneNumberId)) return sendGraphError(reply, runtime.reject(unknownNumberError(phoneNumberId)));
        const upload = await readMediaUpload(request);
        if ('code' in upload) return sendGraphError(reply, runtime.reject(upload));
        return { id: runtime.media.add(phoneNumberId, upload.mimeType, upload.bytes).id };
      });
    }
  });

  for (const path of graphPaths('/:mediaId')) {
    app.delete<{ Params: VersionParams & { mediaId: string }; Querystring: Query }>(path, async (request, reply) => {
      const refused = refuseRequest(request, reply, runtime);
      if (refused !== undefined) return refused;
      const found = ownedMedia(runtime, request.params.mediaId, request.query, 'delete');
      if ('code' in found) return sendGraphError(reply, runtime.reject(found));
      runtime.media.delete(found.id);
      return { success: true };
    });
  }

  app.get<{ Querystring: Query }>(DOWNLOAD_PATH, async (request, reply) => {
    const tokenError = runtime.tokens.check(request.headers.authorization, accessTokenParam(request.query));
    if (tokenError !== undefined) return sendGraphError(reply, runtime.count(tokenError));
    const { mid, ext } = request.query;
    const media = typeof mid === 'string' ? runtime.media.get(mid) : undefined;
    // "If the download attempt fails, you will receive a 404 Not Found response code."
    if (media === undefined || !(Number(ext) * 1000 >= runtime.now())) return reply.code(404).send();
    return reply.type(media.mimeType).send(media.bytes);
  });
}

/**
 * `GET /{media-id}`: the media's URL and what Meta says of the file (media page, "Get media
 * URL"); `file_size` is a string, as in Meta's example and OpenAPI (`retrieveMediaUrl`).
 */
export function mediaInfo(
  runtime: SandboxRuntime,
  media: StoredMedia,
  request: FastifyRequest<{ Querystring: Query }>,
): { body: unknown } | { error: GraphErrorSpec } {
  const owner = ownedMedia(runtime, media.id, request.query, 'get');
  if ('code' in owner) return { error: owner };
  const url = new URL(DOWNLOAD_PATH, `${request.protocol}://${request.host}`);
  url.searchParams.set('mid', media.id);
  url.searchParams.set('ext', String(Math.floor((runtime.now() + URL_TTL_MS) / 1000)));
  const body = {
    messaging_product: 'whatsapp',
    url: url.toString(),
    mime_type: media.mimeType,
    sha256: media.sha256,
    file_size: String(media.fileSize),
    id: media.id,
  };
  return { body };
}

/** The version, then the token, as every Graph route checks them; the reply sent when either fails. */
function refuseRequest(
  request: FastifyRequest<{ Params: VersionParams }>,
  reply: FastifyReply,
  runtime: SandboxRuntime,
): FastifyReply | undefined {
  if (servedVersion(request.params.version, runtime.now()) === undefined)
    return sendGraphError(reply, unknownPathError(urlPath(request.url)));
  const tokenError = runtime.tokens.check(request.headers.authorization, accessTokenParam(request.query));
  return tokenError === undefined ? undefined : sendGraphError(reply, runtime.count(tokenError));
}

/**
 * The upload this ID names, if `?phone_number_id=` (when given) is the number it was
 * uploaded on: "the request will only be processed if the business phone number ID included
 * in the query matches". Graph words the refusal as for an ID of the wrong kind (100).
 */
function ownedMedia(runtime: SandboxRuntime, mediaId: string, query: Query, method: 'get' | 'delete'): StoredMedia | GraphErrorSpec {
  const media = runtime.media.get(mediaId);
  if (media === undefined) return unknownObjectError(mediaId, method);
  const owner = query['phone_number_id'];
  if (owner !== undefined && owner !== media.phoneNumberId) {
    return { code: 100, details: 'Param phone_number_id is not a valid whatsapp business phone number id ID' };
  }
  return media;
}
