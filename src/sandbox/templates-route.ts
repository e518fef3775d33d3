import type { FastifyInstance } from 'fastify';
import { InvalidCursorError, type TemplateListQuery } from './templates-store.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { servedVersion, unknownPathError } from './api-versions.js';
import { accessTokenParam, graphPaths, sendGraphError, urlPath, type VersionParams } from './route-support.js';
import { parseFields, pickFields, unknownFieldError } from './template-fields.js';
import { unknownBusinessAccountError } from './business-accounts.js';

/**
 * `GET /{version}/{waba-id}/message_templates` (reference §5.1; the version is optional): Meta's list shape with
 * cursor paging. Every WABA the sandbox has lists its one catalogue, any other ID is refused
 * (business-accounts.ts); `fields` picks what each template shows (template-fields.ts).
 */
export const DEFAULT_PAGE_SIZE = 25;

type Query = Record<string, unknown>;

export function registerTemplateRoutes(app: FastifyInstance, runtime: SandboxRuntime): void {
  for (const path of graphPaths('/:wabaId/message_templates')) {
    app.get<{ Params: VersionParams & { wabaId: string }; Querystring: Query }>(path, async (request, reply) => {
      if (servedVersion(request.params.version, runtime.now()) === undefined)
        return sendGraphError(reply, unknownPathError(urlPath(request.url)));
      const tokenError = runtime.tokens.check(request.headers.authorization, accessTokenParam(request.query));
      if (tokenError !== undefined) {
        return sendGraphError(reply, runtime.count(tokenError));
      }
      const { wabaId } = request.params;
      if (!runtime.businessAccounts.has(wabaId)) return sendGraphError(reply, runtime.reject(unknownBusinessAccountError(wabaId)));

      const parsed = parseQuery(request.query);
      if (typeof parsed === 'string') {
        return sendGraphError(reply, runtime.reject({ code: 100, details: parsed }));
      }
      const fields = parseFields(request.query.fields);
      if (typeof fields === 'string') return sendGraphError(reply, runtime.reject({ code: 100, details: fields }));
      const unknownField = unknownFieldError(fields);
      if (unknownField !== undefined) return sendGraphError(reply, runtime.reject(unknownField));
      let page;
      try {
        page = runtime.templates.list(parsed);
      } catch (error) {
        if (!(error instanceof InvalidCursorError)) throw error;
        return sendGraphError(reply, runtime.reject({ code: 100, details: error.message }));
      }
      const data = page.data.map((template) => pickFields(template, fields));
      if (page.cursors === undefined) return { data };

      const paging: { cursors: { before: string; after: string }; next?: string } = { cursors: page.cursors };
      if (page.nextAfter !== undefined) {
        // Graph's `next` is an absolute URL that repeats the query with the new cursor.
        const next = new URL(`${request.protocol}://${request.host}${request.url}`);
        next.searchParams.set('limit', String(parsed.limit));
        next.searchParams.set('after', page.nextAfter);
        paging.next = next.toString();
      }
      return { data, paging };
    });
  }
}

/** The list query, or the reason it is invalid (answered as code 100). */
function parseQuery(query: Query): TemplateListQuery | string {
  const result: TemplateListQuery = { limit: DEFAULT_PAGE_SIZE };
  for (const key of ['limit', 'after', 'name', 'status'] as const) {
    const value = query[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') return `Parameter ${key} must be given once, as a non-empty string`;
    if (key === 'limit') {
      if (!/^[1-9]\d*$/.test(value)) return 'Parameter limit must be a positive integer';
      result.limit = Number(value);
    } else {
      result[key] = value;
    }
  }
  return result;
}
