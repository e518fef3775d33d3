import { errors as undiciErrors } from 'undici';
import { CloudApiError, type TransportFailure } from './cloud-api-errors.js';
import { graphErrorSchema } from './response-schemas.js';

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

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Only a refused or never-established connection (or a request undici refused to build) proves Meta did not see it. */
export function transportFailure(error: unknown): TransportFailure {
  if (error instanceof undiciErrors.ConnectTimeoutError || error instanceof undiciErrors.InvalidArgumentError) return 'connect';
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) return 'timeout';
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') return 'connect';
  return 'connection-lost';
}
