import type { FastifyReply } from 'fastify';
import type { GraphErrorReply } from './graph-error.js';

/** Bits shared by the routes that imitate Meta's paths. */

/**
 * Matches `v25.0`-style version segments; other paths fall through to Meta's 2500 error, and
 * the routes answer the same for a well-formed version the sandbox does not serve (api-versions.ts).
 */
export const VERSION_SEGMENT = ':version(^v\\d+\\.\\d+$)';

/** The route params every Graph path has: its version, absent when the path has none. */
export interface VersionParams {
  version?: string;
}

/**
 * A Graph path with and without its version segment: the version is optional in Graph's
 * paths (api-versions.ts says which version each is served as). A versioned path such as
 * `/v25.0/123` never reaches an unversioned route like `/:id/messages`: the router tries
 * the version pattern first.
 */
export function graphPaths(path: string): [versioned: string, unversioned: string] {
  return [`/${VERSION_SEGMENT}${path}`, path];
}

/** Meta also accepts the token as `?access_token=`; the header wins when both are sent. */
export function accessTokenParam(query: unknown): string | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  const value = (query as Record<string, unknown>)['access_token'];
  return typeof value === 'string' ? value : undefined;
}

/** The request's path without its query, as Graph quotes it in 2500 errors. */
export function urlPath(url: string): string {
  return url.split('?')[0] ?? '';
}

export function sendGraphError(reply: FastifyReply, answer: GraphErrorReply): FastifyReply {
  return reply.code(answer.status).send(answer.body);
}

/** Marks a body that was sent but is not JSON, so a route can still check the token first. */
export const NOT_JSON: unique symbol = Symbol('not-json');
