import type { Dispatcher } from 'undici';
import type { MessagingLimit } from '../config/number-settings.js';
import type { Secret } from '../config/secret.js';
import { CloudApiBadResponseError, type CloudApiError } from './cloud-api-errors.js';
import { graphError, graphGet } from './graph-answers.js';
import { safeJson } from './safe-json.js';

/**
 * The phone number's messaging-limit field (reference cloud-api-2026.md §4, §6): from v24.0
 * `whatsapp_business_manager_messaging_limit`, while the deprecated `messaging_limit_tier`
 * answers null; before v24.0 only `messaging_limit_tier` exists. The configured version decides
 * which one is asked for, so one request is enough.
 */
export function messagingLimitField(apiVersion: string): 'whatsapp_business_manager_messaging_limit' | 'messaging_limit_tier' {
  const major = /^v(\d+)\./.exec(apiVersion)?.[1];
  return major !== undefined && Number(major) < 24 ? 'messaging_limit_tier' : 'whatsapp_business_manager_messaging_limit';
}

export interface MessagingLimitRequest {
  baseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  accessToken: Secret;
  timeoutMs: number;
  /** Tests pass an undici MockAgent; default the global dispatcher. */
  dispatcher?: Dispatcher;
}

/** `TIER_250`, `TIER_2K`, `TIER_100K`, `TIER_UNLIMITED` → 250, 2000, 100000, 'unlimited'; anything else undefined. */
export function parseMessagingTier(tier: unknown): MessagingLimit | undefined {
  if (typeof tier !== 'string') return undefined;
  if (tier === 'TIER_UNLIMITED') return 'unlimited';
  const match = /^TIER_(\d+)(K?)$/.exec(tier);
  if (match === null) return undefined;
  return Number(match[1]) * (match[2] === 'K' ? 1000 : 1);
}

/** `GET /{version}/{phone-number-id}?fields=…`: the number's messaging limit. Throws a CloudApiError when it cannot be read. */
export async function fetchMessagingLimit(options: MessagingLimitRequest): Promise<MessagingLimit> {
  const field = messagingLimitField(options.apiVersion);
  const answer = await get(options, field);
  if ('error' in answer) throw answer.error;
  const limit = parseMessagingTier(answer.body[field]);
  if (limit !== undefined) return limit;
  throw new CloudApiBadResponseError(
    200,
    `phone number ${options.phoneNumberId}: no messaging limit tier in ${field} at ${options.apiVersion} ` +
      `(got ${JSON.stringify(answer.body[field]) ?? 'nothing'})`,
  );
}

async function get(options: MessagingLimitRequest, fields: string): Promise<{ body: Record<string, unknown> } | { error: CloudApiError }> {
  const { baseUrl, apiVersion, phoneNumberId, accessToken, timeoutMs, dispatcher } = options;
  const url = new URL(`${baseUrl}/${apiVersion}/${encodeURIComponent(phoneNumberId)}`);
  url.searchParams.set('fields', fields);
  const { status, text } = await graphGet(url, {
    accessToken,
    timeoutMs,
    ...(dispatcher === undefined ? {} : { dispatcher }),
    what: `reading the messaging limit of phone number ${phoneNumberId}`,
  });
  if (status < 200 || status >= 300) {
    const error = graphError(status, text);
    error.message =
      `Cloud API refused to read the messaging limit of phone number ${phoneNumberId} ` +
      `(${error.metaCode === undefined ? `HTTP ${status}` : `code ${error.metaCode}`}): ${error.details ?? 'no error body'}`;
    return { error };
  }
  const body = safeJson(text);
  if (typeof body !== 'object' || body === null)
    throw new CloudApiBadResponseError(status, `phone number ${phoneNumberId}: the answer is not a JSON object`);
  return { body: body as Record<string, unknown> };
}
