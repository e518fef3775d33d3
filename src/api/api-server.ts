import rateLimit from '@fastify/rate-limit';
import multipart from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../errors/app-error.js';
import type { ApiTokenLookup } from '../http/api-tokens.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/key-scope.js';
import { readyWithin } from '../redis/redis-connection.js';
import { apiRateLimitNamespace } from '../redis/service-keys.js';
import { callerKey, callerOf, type DashboardSessions } from './api-principal.js';
import { callerOfRequest, setCaller } from './api-route.js';
import { OPENAPI_PATH } from './openapi.js';
import { PROBLEM_CONTENT_TYPE, problemOf } from './problem.js';

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
      scope.addHook('onRequest', async (request) => {
        if (isOpenApiDocument(request)) return;
        await readyWithin(redis, CONNECT_WAIT_MS).catch((error: unknown) => {
          throw new AppError('REDIS_UNAVAILABLE', 'Redis is not answering: the API cannot serve this request now; retry later', {
            cause: error,
          });
        });
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
      scope.setNotFoundHandler(async (request, reply) =>
        sendProblem(reply, new AppError('API_NOT_FOUND', `No API route ${request.method} ${request.url.split('?')[0]}`), request),
      );
      scope.setErrorHandler(async (error: FastifyError | AppError, request, reply) => {
        const known = isAppError(error) ? error : fastifyErrorOf(error);
        const problem = await sendProblem(reply, known ?? error, request);
        if (problem >= 500) logger.error({ err: error, url: request.url.split('?')[0] }, 'API request failed');
      });
      await options.routes(scope);
    },
    { prefix: API_BASE },
  );
}

/** The one request the API answers without a caller: its OpenAPI document, a description with nothing secret in it. */
function isOpenApiDocument(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && request.routeOptions.url === `${API_BASE}${OPENAPI_PATH}`;
}

/** Sends the problem document of `error`; answers its status. */
export async function sendProblem(reply: FastifyReply, error: unknown, request: FastifyRequest): Promise<number> {
  const problem = problemOf(error, request.url.split('?')[0]);
  await reply.code(problem.status).header('cache-control', 'no-store').type(PROBLEM_CONTENT_TYPE).send(problem);
  return problem.status;
}

/** fastify's own refusals (a body too large, a type it does not read, JSON that does not parse) as the API's codes. */
function fastifyErrorOf(error: FastifyError): AppError | undefined {
  const status = error.statusCode;
  if (status === undefined || status >= 500) return undefined;
  if (status === 413) return new AppError('API_UPLOAD_TOO_LARGE', `The body is larger than the API takes: ${error.message}`);
  if (status === 429) return new AppError('API_RATE_LIMITED', error.message);
  return new AppError('API_REQUEST_INVALID', error.message);
}
