import type { GraphErrorReply } from './graph-error.js';
import { newTraceId } from './graph-error.js';

/**
 * The Graph API versions the sandbox answers on. Meta serves each version for about two
 * years; a client configured with a retired or not-yet-released one should find out here.
 * What Meta answers for such a version on this endpoint is not established (reference §2.3,
 * code 2500, UNCONFIRMED): the sandbox answers as for any unknown path.
 */
export const SUPPORTED_API_VERSIONS: ReadonlySet<string> = new Set(Array.from({ length: 8 }, (_, i) => `v${18 + i}.0`));

export function isSupportedVersion(version: string): boolean {
  return SUPPORTED_API_VERSIONS.has(version);
}

/** Graph's answer to a path it cannot route (also the not-found handler's). */
export function unknownPathError(path: string): GraphErrorReply {
  return {
    status: 400,
    body: {
      error: { message: `Unknown path components: ${path}`, type: 'OAuthException', code: 2500, fbtrace_id: newTraceId() },
    },
  };
}
