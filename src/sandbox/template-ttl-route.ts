import type { FastifyInstance } from 'fastify';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { servedVersion, unknownPathError } from './api-versions.js';
import { missingParameter, unknownObjectError, type GraphErrorSpec } from './graph-error.js';
import { NOT_JSON, accessTokenParam, graphPaths, sendGraphError, urlPath, type VersionParams } from './route-support.js';

/**
 * Meta's time-to-live ranges by template category, in seconds (Configure message time-to-live,
 * updated 2026-05-21): authentication 30 s to 15 min, utility 30 s to 12 h, and marketing 12 h
 * to 30 days, the last for sends through the Marketing Messages API only.
 */
export const TTL_RANGES: Readonly<Record<string, { min: number; max: number }>> = {
  AUTHENTICATION: { min: 30, max: 900 },
  UTILITY: { min: 30, max: 43_200 },
  MARKETING: { min: 43_200, max: 2_592_000 },
};

/**
 * `POST /{version}/{template-id}` (the version is optional) with `message_send_ttl_seconds`: how Meta sets an existing
 * template's time-to-live. The sandbox models only that edit: any other field of a template
 * edit is refused with 100, so a client never believes an edit the sandbox did not make.
 */
export function registerTemplateTtlRoute(app: FastifyInstance, runtime: SandboxRuntime): void {
  for (const path of graphPaths('/:objectId')) {
    app.post<{ Params: VersionParams & { objectId: string } }>(path, async (request, reply) => {
      if (servedVersion(request.params.version, runtime.now()) === undefined)
        return sendGraphError(reply, unknownPathError(urlPath(request.url)));
      const tokenError = runtime.tokens.check(request.headers.authorization, accessTokenParam(request.query));
      if (tokenError !== undefined) return sendGraphError(reply, runtime.count(tokenError));
      const entry = runtime.templates.byId(request.params.objectId);
      if (entry === undefined) return sendGraphError(reply, runtime.reject(unknownObjectError(request.params.objectId, 'post')));
      const problem = ttlProblem(request.body, entry.template.category);
      if (typeof problem !== 'number') return sendGraphError(reply, runtime.reject(problem));
      runtime.templates.setTtl(entry, problem);
      return { success: true };
    });
  }
}

/** The TTL asked for, or Graph's refusal of the body. */
function ttlProblem(body: unknown, category: string | undefined): number | GraphErrorSpec {
  if (body === NOT_JSON || typeof body !== 'object' || body === null)
    return { code: 100, details: 'The request body must be a JSON object' };
  const fields = Object.keys(body);
  const other = fields.find((field) => field !== 'message_send_ttl_seconds');
  if (other !== undefined)
    return { code: 100, details: `Parameter ${other} is not supported by the sandbox (only message_send_ttl_seconds)` };
  const seconds = (body as Record<string, unknown>)['message_send_ttl_seconds'];
  if (seconds === undefined) return missingParameter('message_send_ttl_seconds');
  const range = TTL_RANGES[category ?? ''];
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || range === undefined || seconds < range.min || seconds > range.max) {
    const allowed = range === undefined ? 'none for this category' : `${range.min} to ${range.max}`;
    return {
      code: 100,
      details: `Invalid parameter message_send_ttl_seconds: ${JSON.stringify(seconds)} (${category ?? 'no category'}: ${allowed})`,
    };
  }
  return seconds;
}
