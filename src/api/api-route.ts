import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import type { ApiScope } from '../http/api-tokens.js';
import { requireScope, type ApiCaller } from './api-principal.js';
import { ProblemsError } from './problem.js';

/** One answer a route can give: its status, what it means, and its body's schema and media type. */
export interface ApiAnswer {
  description: string;
  schema?: z.ZodType;
  /** Default application/json; a problem answer is application/problem+json. */
  contentType?: string;
  /** Other media types the same answer comes as (a query picks it, e.g. `format=csv`), with their bodies' schemas. */
  alternatives?: Record<string, z.ZodType | undefined>;
}

/**
 * A route of the HTTP API, as data: the server registers it and the OpenAPI document is
 * generated from it, so the two cannot drift. `path` is fastify's form (`/campaigns/:id`),
 * below `/api/v1`.
 */
export interface ApiRouteDefinition<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** The narrowest token scope that may call it. */
  scope: ApiScope;
  params?: P;
  query?: Q;
  /** A JSON body, parsed here; an upload route reads its own body (`upload`) and names its media types for the document. */
  body?: B;
  upload?: { description: string; contentTypes: Record<string, z.ZodType | undefined> };
  /** Request headers the route reads (documented only). */
  headers?: Record<string, string>;
  responses: Record<number, ApiAnswer>;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

/** What a handler gets: the request read by the route's schemas, and who made it. */
export interface ApiContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  caller: ApiCaller;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** The caller of a request, set by the API's onRequest hook. */
export const CALLER = Symbol('api caller');
type WithCaller = FastifyRequest & { [CALLER]?: ApiCaller };

export function setCaller(request: FastifyRequest, caller: ApiCaller): void {
  (request as WithCaller)[CALLER] = caller;
}

export function callerOfRequest(request: FastifyRequest): ApiCaller | undefined {
  return (request as WithCaller)[CALLER];
}

/**
 * Registers a route: the caller's scope is checked (before the body is read), then params,
 * query and body are read by their schemas (every problem at once, 400); the handler's return value is the JSON answer
 * (or it sends on `reply` itself).
 */
export function registerApiRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  app: FastifyInstance,
  definition: ApiRouteDefinition<P, Q, B>,
  handler: (context: ApiContext<Infer<P>, Infer<Q>, Infer<B>>) => Promise<unknown>,
): void {
  app.route({
    method: definition.method,
    url: definition.path,
    // Before the body is read: a caller who may not call the route learns that (401, 403), not what its body lacks (400, 413).
    onRequest: (request, _reply, done) => {
      try {
        requireScope(authenticatedCaller(request), definition.scope);
      } catch (error) {
        done(error as Error);
        return;
      }
      done();
    },
    handler: async (request, reply) => {
      const caller = authenticatedCaller(request);
      const params = readPart(definition.params, request.params, 'path') as Infer<P>;
      const query = readPart(definition.query, request.query, 'query') as Infer<Q>;
      const body = readPart(definition.body, request.body, 'body') as Infer<B>;
      return handler({ params, query, body, caller, request, reply });
    },
  });
}

function authenticatedCaller(request: FastifyRequest): ApiCaller {
  const caller = callerOfRequest(request);
  if (caller === undefined) throw new AppError('API_TOKEN_MISSING', 'The request is not authenticated');
  return caller;
}

/**
 * A part of the request read by its schema. A body that is absent reads as `{}` (a route whose
 * body has only optional fields needs none); one that is present is read as sent, so JSON
 * `null` is refused like any other body that is not the object the route takes.
 */
function readPart(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(value === undefined ? {} : value);
  if (parsed.success) return parsed.data;
  throw new ProblemsError(
    parsed.error.issues.map((issue) => {
      const path = issue.path.map(String).join('.');
      const named = path === '' ? where : `${where === 'body' ? '' : `${where} `}${path}`;
      return { code: 'API_REQUEST_INVALID', detail: `${named}: ${issue.message.replace(/^Invalid input: /, '')}`, field: path || where };
    }),
    { code: 'API_REQUEST_INVALID', status: 400 },
  );
}
