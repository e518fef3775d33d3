import rateLimit from '@fastify/rate-limit';
import multipart from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../errors/app-error.js';
import { redisUnavailableError } from '../errors/redis-errors.js';
import type { ApiTokenLookup } from '../http/api-tokens.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/key-scope.js';
import { readyWithin } from '../redis/redis-connection.js';
import { apiRateLimitNamespace } from '../redis/service-keys.js';
import { AllowedMethods } from './allowed-methods.js';
import { callerKey, callerOf } from './api-principal.js';
import type { DashboardSessions } from '../http/dashboard-sessions.js';
import { errorHeaders } from './headed-error.js';
import { callerOfRequest, setCaller } from './api-route.js';
import { OPENAPI_PATH } from './openapi.js';
import { PROBLEM_CONTENT_TYPE, problemHeaders, problemOf } from './problem.js';

/** Every route of the API is below this path. */
export const API_BASE = '/api/v1';

export interface ApiServerOptions {
  /** The API's own connection: tokens, rate counts, and what its routes read and write. */
  redis: RedisClient;
  prefix: string;
  tokens: ApiTokenLookup;
  /** The dashboard's pages call the API with their CSRF token; undefined: bearer tokens only. */
  sessions: DashboardSessions | undefined;
  /** API_MAX_UPLOAD_BYTES and API_RATE_LIMIT (per caller, per minute). */
  limits: { maxUploadBytes: number; requestsPerMinute: number };
  logger: Logger;
  /** Adds the routes (registerApiRoute) to the API's scope. */
  routes(scope: FastifyInstance): void | Promise<void>;
}

/** How long a request waits for a connection still coming up (then 503). */
const CONNECT_WAIT_MS = 1000;
/** Redis away costs one log line per this long, however many requests it refuses. */
const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;
/** A JSON body (a spec, an opt-out list) is small; uploads stream past this limit. */
const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * The HTTP API on `campaign serve`, under /api/v1: every request authenticated (a bearer
 * token, even on loopback, or the dashboard's pages with their CSRF token), limited per
 * caller, and every error answered as an RFC 9457 problem document with a stable code.
 */
export async function registerApi(app: FastifyInstance, options: ApiServerOptions): Promise<void> {
  const { redis, logger } = options;
  await app.register(
    async (scope) => {
      // The service keeps request bodies as bytes (webhook signatures); the API reads JSON, and streams uploads itself.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser(
        'application/json',
        { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
        scope.getDefaultJsonParser('error', 'error'),
      );
      scope.addContentTypeParser(['text/csv', 'text/plain', 'application/octet-stream'], (_request, payload, done) => done(null, payload));
      await scope.register(multipart, {
        limits: { fileSize: options.limits.maxUploadBytes, files: 2, fields: 4, fieldSize: JSON_BODY_LIMIT, parts: 6 },
      });
      const methods = new AllowedMethods();
      scope.addHook('onRoute', (route) => methods.add(route.url, route.method));
      scope.addHook('onRequest', async (request) => {
        if (isOpenApiDocument(request)) return;
        // A connection still coming up gets a moment; one that is down (or never came up) is a 503 at once, not a failed command.
        await readyWithin(redis, CONNECT_WAIT_MS);
        if (redis.status !== 'ready')
          throw new AppError('REDIS_UNAVAILABLE', 'Redis is not answering: the API cannot serve this request now; retry later');
        setCaller(request, await callerOf(request, options.tokens, options.sessions));
      });
      await scope.register(rateLimit, {
        hook: 'preHandler',
        max: options.limits.requestsPerMinute,
        timeWindow: 60_000,
        redis,
        nameSpace: apiRateLimitNamespace(options.prefix),
        // Redis away: the request goes on and fails on Redis itself, with its own 503.
        skipOnError: true,
        keyGenerator: (request: FastifyRequest) => {
          const caller = callerOfRequest(request);
          return caller === undefined ? `ip:${request.ip}` : callerKey(caller);
        },
        errorResponseBuilder: (_request, context) =>
          new AppError('API_RATE_LIMITED', `More than ${context.max} requests in a minute from this caller; retry in ${context.after}`),
      });
      scope.setNotFoundHandler(async (request, reply) => {
        await sendProblem(reply, notFound(request, methods), request, allowHeader(request, methods));
      });
      scope.setErrorHandler(apiErrorHandler(redis, logger));
      await options.routes(scope);
    },
    { prefix: API_BASE },
  );
}

/** The one request the API answers without a caller: its OpenAPI document, a description with nothing secret in it. */
function isOpenApiDocument(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && request.routeOptions.url === `${API_BASE}${OPENAPI_PATH}`;
}

/** Sends the problem document of `error` (with `headers` and those its code carries, e.g. Retry-After); answers its status. */
export async function sendProblem(
  reply: FastifyReply,
  error: unknown,
  request: FastifyRequest,
  headers: Record<string, string> = {},
): Promise<number> {
  const problem = problemOf(error, pathOf(request));
  await reply
    .code(problem.status)
    .headers({ ...headers, ...errorHeaders(error), ...problemHeaders(problem) })
    .header('cache-control', 'no-store')
    .type(PROBLEM_CONTENT_TYPE)
    .send(problem);
  return problem.status;
}

/**
 * Every error as a problem document: the API's own (AppError), fastify's refusals, and a
 * failed Redis command as 503 REDIS_UNAVAILABLE when Redis does not answer; anything else is a
 * bug (500, logged with its stack). A known 5xx (Meta away: 502) is a warning without a stack;
 * Redis away is logged once per interval, not per request.
 */
function apiErrorHandler(redis: RedisClient, logger: Logger) {
  let lastUnavailableLog = Number.NEGATIVE_INFINITY;
  return async (error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (clientWentAway(request)) {
      // Nobody reads the answer: a client that drops its connection mid-request is an ordinary event, not a failure of ours.
      logger.info({ url: pathOf(request), reason: error.message }, 'API request ended early: the client closed the connection');
      return;
    }
    const known = isAppError(error) ? error : (fastifyErrorOf(error) ?? (await redisUnavailableError(error, redis)));
    const status = await sendProblem(reply, known ?? error, request);
    if (status < 500) return;
    if (known === undefined || known.code === 'INTERNAL_ERROR') logger.error({ err: error, url: pathOf(request) }, 'API request failed');
    else if (known.code !== 'REDIS_UNAVAILABLE')
      logger.warn({ url: pathOf(request), code: known.code, reason: known.message }, 'API request failed');
    else if (Date.now() - lastUnavailableLog >= UNAVAILABLE_LOG_INTERVAL_MS) {
      lastUnavailableLog = Date.now();
      logger.warn({ url: pathOf(request) }, 'API requests answered 503: Redis is not answering');
    }
  };
}

/** No route of this method: 405 when the path is a route's with other methods (they are in `Allow`), else 404. */
function notFound(request: FastifyRequest, methods: AllowedMethods): AppError {
  const path = pathOf(request);
  const allowed = methods.at(path);
  if (allowed.length > 0) return new AppError('API_METHOD_NOT_ALLOWED', `${path} takes ${allowed.join(', ')}, not ${request.method}`);
  return new AppError('API_NOT_FOUND', `No API route ${request.method} ${path}`);
}

function allowHeader(request: FastifyRequest, methods: AllowedMethods): Record<string, string> {
  const allowed = methods.at(pathOf(request));
  return allowed.length === 0 ? {} : { allow: allowed.join(', ') };
}

/** The client closed its connection before the answer: an upload it gave up, a timeout of its own. */
function clientWentAway(request: FastifyRequest): boolean {
  return request.raw.socket?.destroyed === true || request.raw.readableAborted;
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0]!;
}

/** fastify's own refusals (a body too large, a type it does not read, JSON that does not parse) as the API's codes. */
function fastifyErrorOf(error: FastifyError): AppError | undefined {
  const status = error.statusCode;
  if (status === undefined || status >= 500) return undefined;
  if (status === 413) return new AppError('API_UPLOAD_TOO_LARGE', `The body is larger than the API takes: ${error.message}`);
  if (status === 429) return new AppError('API_RATE_LIMITED', error.message);
  return new AppError('API_REQUEST_INVALID', error.message);
}
