import { safeJson } from './safe-json.js';
import { errors as undiciErrors, request, type Dispatcher } from 'undici';
import type { Secret } from '../config/secret.js';
import { CloudApiError, CloudApiTransportError, type TransportFailure } from './cloud-api-errors.js';
import { graphErrorSchema } from './response-schemas.js';
import { userAgent } from './user-agent.js';

/** How every Cloud API call reads an error answer or a failed request; one place for all clients. */
export function graphError(status: number, text: string): CloudApiError {
  const parsed = graphErrorSchema.safeParse(safeJson(text));
  if (!parsed.success) return new CloudApiError({ httpStatus: status });
  const e = parsed.data.error;
  return new CloudApiError({
    httpStatus: status,
    metaCode: e.code,
    subcode: e.error_subcode,
    title: e.message,
    details: e.error_data?.details,
    fbtraceId: e.fbtrace_id,
  });
}

/** Only a refused or never-established connection (or a request undici refused to build) proves Meta did not see it. */
export function transportFailure(error: unknown): TransportFailure {
  if (error instanceof undiciErrors.ConnectTimeoutError || error instanceof undiciErrors.InvalidArgumentError) return 'connect';
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) return 'timeout';
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') return 'connect';
  return 'connection-lost';
}

/** What a Graph call needs besides its URL; `what` says what was being done, for a failure with no answer. */
export interface GraphCallOptions {
  accessToken: Secret;
  timeoutMs: number;
  dispatcher?: Dispatcher;
  what: string;
}

/** A Graph POST of a JSON body, the token in the Authorization header only (see graphGet). */
export function graphPost(url: URL, body: unknown, options: GraphCallOptions): Promise<{ status: number; text: string }> {
  return graphCall(url, options, { method: 'POST', body: JSON.stringify(body) });
}

/**
 * A Graph GET with the token in the Authorization header only (never in the URL): the status
 * and body text of whatever answer came, or a CloudApiTransportError saying what was being
 * read (`what`, e.g. "listing templates, page 2") when none did.
 */
export function graphGet(url: URL, options: GraphCallOptions): Promise<{ status: number; text: string }> {
  return graphCall(url, options, { method: 'GET' });
}

async function graphCall(
  url: URL,
  options: GraphCallOptions,
  call: { method: 'GET' } | { method: 'POST'; body: string },
): Promise<{ status: number; text: string }> {
  const json = call.method === 'POST' ? { 'content-type': 'application/json' } : {};
  try {
    const response = await request(url, {
      ...call,
      ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
      headers: { authorization: `Bearer ${options.accessToken.reveal()}`, accept: 'application/json', 'user-agent': userAgent(), ...json },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    return { status: response.statusCode, text: await response.body.text() };
  } catch (error) {
    const failure = new CloudApiTransportError(transportFailure(error), error);
    failure.message = `No answer from the Cloud API ${options.what} (${failure.failure})`;
    throw failure;
  }
}
