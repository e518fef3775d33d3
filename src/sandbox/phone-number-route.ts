import type { FastifyInstance } from 'fastify';
import { servedVersion, unknownPathError, type ApiVersion } from './api-versions.js';
import { unknownNumberError } from './phone-numbers.js';
import { mediaInfo } from './media-routes.js';
import { accessTokenParam, graphPaths, sendGraphError, urlPath, type VersionParams } from './route-support.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { wabaFields } from './waba-fields.js';
import type { MessagingLimitTier } from './messaging-limit-tiers.js';

type Query = Record<string, unknown>;

/**
 * `GET /{version}/{phone-number-id}?fields=…` (OpenAPI: Get WhatsApp Account Number; the
 * version is optional): the fields asked for, among those the sandbox models; without
 * `fields`, Graph's defaults (id, display_phone_number, status). A field Graph does not have
 * is refused with 100, as Graph refuses it, so a client asking for a misspelt or retired
 * field finds out here. The fields are those of the version the call is served as (see
 * messagingLimitFields). The same path names a WABA or an uploaded media, answered as those.
 */
export function registerPhoneNumberRoutes(app: FastifyInstance, runtime: SandboxRuntime): void {
  for (const path of graphPaths('/:phoneNumberId')) {
    app.get<{ Params: VersionParams & { phoneNumberId: string }; Querystring: Query }>(path, async (request, reply) => {
      const served = servedVersion(request.params.version, runtime.now());
      if (served === undefined) return sendGraphError(reply, unknownPathError(urlPath(request.url)));
      const tokenError = runtime.tokens.check(request.headers.authorization, accessTokenParam(request.query));
      if (tokenError !== undefined) return sendGraphError(reply, runtime.count(tokenError));
      const { phoneNumberId } = request.params;
      const media = runtime.media.get(phoneNumberId);
      if (media !== undefined) {
        const answer = mediaInfo(runtime, media, request);
        return 'error' in answer ? sendGraphError(reply, runtime.reject(answer.error)) : answer.body;
      }
      // The same path shape names a WhatsApp Business Account (its pricing_analytics).
      if (runtime.businessAccounts.has(phoneNumberId) && !runtime.numbers.has(phoneNumberId)) {
        const answer = wabaFields(runtime, phoneNumberId, request.query.fields);
        return 'error' in answer ? sendGraphError(reply, runtime.reject(answer.error)) : answer.body;
      }
      if (!runtime.numbers.has(phoneNumberId)) return sendGraphError(reply, runtime.reject(unknownNumberError(phoneNumberId, 'get')));
      const known: Record<string, unknown> = {
        id: phoneNumberId,
        display_phone_number: `+1 555-${phoneNumberId.slice(-7, -4)}-${phoneNumberId.slice(-4)}`,
        verified_name: 'Sandbox Business',
        status: 'CONNECTED',
        quality_rating: 'GREEN',
        ...messagingLimitFields(served, runtime.messagingLimitTier),
        throughput: { level: runtime.messagesPerSecond > 80 || runtime.messagesPerSecond === 0 ? 'HIGH' : 'STANDARD' },
      };
      const asked =
        typeof request.query.fields === 'string'
          ? request.query.fields
              .split(',')
              .map((f) => f.trim())
              .filter((f) => f !== '')
          : ['id', 'display_phone_number', 'status'];
      const unknown = asked.find((field) => !(field in known));
      if (unknown !== undefined) {
        return sendGraphError(
          reply,
          runtime.reject({
            code: 100,
            type: 'OAuthException',
            message: `(#100) Tried accessing nonexisting field (${unknown}) on node type (WhatsAppBusinessPhoneNumber)`,
          }),
        );
      }
      return Object.fromEntries([['id', phoneNumberId], ...asked.map((field) => [field, known[field]])]);
    });
  }
}

/**
 * From v24.0 the limit is `whatsapp_business_manager_messaging_limit` and the deprecated
 * `messaging_limit_tier` answers null (reference cloud-api-2026.md §4, §6); before v24.0 the
 * node has only `messaging_limit_tier`, so asking for the new field is refused with 100.
 */
function messagingLimitFields(served: ApiVersion, tier: MessagingLimitTier): Record<string, unknown> {
  if (served.major >= 24) return { messaging_limit_tier: null, whatsapp_business_manager_messaging_limit: tier };
  return { messaging_limit_tier: tier };
}
