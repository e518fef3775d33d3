import type { Dispatcher } from 'undici';
import type { Secret } from '../config/secret.js';
import { CloudApiBadResponseError } from './cloud-api-errors.js';
import { graphError, graphPost } from './graph-answers.js';
import { safeJson } from './safe-json.js';

export interface TemplateTtlRequest {
  baseUrl: string;
  apiVersion: string;
  templateId: string;
  /** `message_send_ttl_seconds`: how long Meta keeps trying to deliver each message of the template. */
  seconds: number;
  accessToken: Secret;
  timeoutMs: number;
  /** Tests pass an undici MockAgent; default the global dispatcher. */
  dispatcher?: Dispatcher;
}

/**
 * `POST /{version}/{template-id}` with `message_send_ttl_seconds`: Meta keeps a time-to-live
 * per template, not per message, and this is how an existing template's is changed. Throws a
 * CloudApiError saying what Meta refused.
 */
export async function setTemplateTtl(options: TemplateTtlRequest): Promise<void> {
  const { baseUrl, apiVersion, templateId, seconds, accessToken, timeoutMs, dispatcher } = options;
  const url = new URL(`${baseUrl}/${apiVersion}/${encodeURIComponent(templateId)}`);
  const what = `setting the time-to-live of template ${templateId}`;
  const { status, text } = await graphPost(
    url,
    { message_send_ttl_seconds: seconds },
    { accessToken, timeoutMs, what, ...(dispatcher === undefined ? {} : { dispatcher }) },
  );
  if (status < 200 || status >= 300) {
    const error = graphError(status, text);
    error.message =
      `Cloud API refused ${what} to ${seconds} s ` +
      `(${error.metaCode === undefined ? `HTTP ${status}` : `code ${error.metaCode}`}): ${error.details ?? 'no error details'}`;
    throw error;
  }
  const body = safeJson(text) as { success?: unknown } | undefined;
  if (body?.success !== true) throw new CloudApiBadResponseError(status, `${what}: the answer has no "success": true`);
}
