import { Blob } from 'node:buffer';
import { Agent, FormData, request, type Dispatcher } from 'undici';
import { z } from 'zod';
import type { Secret } from '../config/secret.js';
import { CloudApiBadResponseError, CloudApiTransportError, type CloudApiError } from './cloud-api-errors.js';
import { graphError, transportFailure } from './graph-answers.js';
import { safeJson } from './safe-json.js';
import { userAgent } from './user-agent.js';

export interface MediaUploadClientOptions {
  baseUrl: string;
  apiVersion: string;
  accessToken: Secret;
  /**
   * Waiting for the answer's headers, and between its body's chunks. An upload of up to 100 MB
   * is processed by Meta before it answers: give it more than a send's timeout (60 s is ample).
   */
  timeoutMs: number;
  /** For tests (undici MockAgent); by default a small keep-alive Agent owned by this client. */
  dispatcher?: Dispatcher;
}

/** Meta's answer to an upload: `{ "id": "<MEDIA_ID>" }` (media page, "Upload media"). */
const uploadAnswerSchema = z.object({ id: z.string().regex(/^\d+$/, 'must be a numeric media ID') });

/**
 * Uploads a header's media: `POST /{version}/{phone-number-id}/media`, multipart with
 * `messaging_product=whatsapp`, the file (its part labelled with its type) and `type`, as
 * Meta's media page shows it. An error answer becomes a CloudApiError (`metaCode` 131053:
 * Meta refused the file itself), no answer a CloudApiTransportError, a 2xx without a media ID
 * a CloudApiBadResponseError; the token travels only in the Authorization header, and no
 * message says it.
 */
export class MediaUploadClient {
  readonly #options: MediaUploadClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: MediaUploadClientOptions) {
    this.#options = options;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({ connections: 4, keepAliveTimeout: 10_000, connect: { timeout: Math.min(options.timeoutMs, 10_000) } });
  }

  /** The media ID of the uploaded file, good for 30 days on this number. */
  async uploadMedia(phoneNumberId: string, bytes: Uint8Array, mimeType: string, filename: string): Promise<string> {
    const { baseUrl, apiVersion, accessToken, timeoutMs } = this.#options;
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('type', mimeType);
    form.append('file', new Blob([bytes], { type: mimeType }), filename);
    let status: number;
    let text: string;
    try {
      const response = await request(`${baseUrl}/${apiVersion}/${encodeURIComponent(phoneNumberId)}/media`, {
        method: 'POST',
        dispatcher: this.#dispatcher,
        headers: { authorization: `Bearer ${accessToken.reveal()}`, accept: 'application/json', 'user-agent': userAgent() },
        body: form,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      const failure = new CloudApiTransportError(transportFailure(error), error);
      failure.message = `No answer from the Cloud API uploading media on number ${phoneNumberId} (${failure.failure})`;
      throw failure;
    }
    if (status < 200 || status > 299) throw this.#graphError(phoneNumberId, status, text);
    const parsed = uploadAnswerSchema.safeParse(safeJson(text));
    if (!parsed.success) throw new CloudApiBadResponseError(status, `media upload: ${parsed.error.issues[0]?.message ?? 'no id'}`);
    return parsed.data.id;
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #graphError(phoneNumberId: string, status: number, text: string): CloudApiError {
    const error = graphError(status, text);
    const what = error.metaCode === undefined ? `HTTP ${status}` : `code ${error.metaCode}`;
    error.message = `Cloud API refused the media upload on number ${phoneNumberId} (${what}): ${error.details ?? 'no error body'}`;
    return error;
  }
}
