import { RefusedAddressError } from './guarded-lookup.js';
import { describeUrl, mediaProblem, type MediaProblem } from './media-problem.js';

/** The request a failure happened on: its URL (one hop of the redirects) and the download's deadline. */
export interface FetchStep {
  url: URL;
  deadline: AbortSignal;
  timeoutMs: number;
}

/**
 * A download that got no usable answer, as a MEDIA_UNREACHABLE detail an operator can act on:
 * what failed (an address refused, the name unknown, the deadline, the connection, TLS) and
 * what to do. Error codes, not messages, are read: a message may quote anything.
 */
export function fetchFailure(error: unknown, step: FetchStep): MediaProblem {
  const from = describeUrl(step.url);
  const refused = findError(error, (e): e is RefusedAddressError => e instanceof RefusedAddressError);
  if (refused !== undefined) return refusedHost(step.url, `${refused.hostname} resolves to a refused address: ${refused.reason}`);
  if (step.deadline.aborted) {
    return unreachable(`${from} did not send the whole file within ${step.timeoutMs / 1000} s: link a faster or smaller file`);
  }
  const code = findCode(error);
  const host = step.url.hostname;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_NODATA') {
    return unreachable(`${from}: the host ${host} was not found (DNS: ${code}); check the link's spelling`);
  }
  if (code === 'ECONNREFUSED') return unreachable(`${from}: ${host} refused the connection; check the link's host and port`);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return unreachable(`${from}: connecting to ${host} timed out`);
  if (code !== undefined && /^(CERT_|ERR_TLS|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_SSL)/.test(code)) {
    return unreachable(`${from}: ${host}'s TLS certificate was not accepted (${code}); serve the file with a valid certificate`);
  }
  return unreachable(
    `${from} could not be read (${code ?? (error instanceof Error ? error.name : 'unknown error')}); check that the link works`,
  );
}

/** A connection refused by the address policy: the reason names the address, and the setting that would allow it. */
export function refusedHost(url: URL, reason: string): MediaProblem {
  return unreachable(
    `${describeUrl(url)}: ${reason}; media is fetched only from public addresses ` +
      '(MEDIA_ALLOW_PRIVATE_HOSTS=1 allows others, for a test setup or a media server on your own network)',
  );
}

const unreachable = (detail: string): MediaProblem => mediaProblem('MEDIA_UNREACHABLE', detail);

/** The first error in the chain (`cause`, an AggregateError's `errors`) that matches. */
function findError<T>(error: unknown, match: (e: unknown) => e is T, depth = 0): T | undefined {
  if (match(error)) return error;
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const nested = [(error as { cause?: unknown }).cause, ...((error as { errors?: unknown[] }).errors ?? [])];
  for (const inner of nested) {
    const found = findError(inner, match, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function findCode(error: unknown): string | undefined {
  const withCode = findError(error, (e): e is { code: string } => typeof (e as { code?: unknown } | null)?.code === 'string');
  return withCode?.code;
}
