import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { REDIS_RETRY_AFTER_SECONDS } from '../http/redis-retry.js';
import { isAppError } from '../errors/app-error.js';
import { redisUnavailableError } from '../errors/redis-errors.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/key-scope.js';
import { readyWithin } from '../redis/redis-connection.js';
import { CHART_ASSET_PATHS } from './campaign-charts.js';
import { html } from './html.js';
import { ASSET_PATHS, page } from './layout.js';
import { sendPage } from './page-answers.js';

/** A failed page load costs one log line per this long. */
const FAILURE_LOG_INTERVAL_MS = 10_000;
/** How long a request waits for a connection still coming up (then it fails fast: 503). */
const CONNECT_WAIT_MS = 1000;
/** Files that read nothing from Redis: served while it is away, so the page that says so has its stylesheet. */
const STATIC_PATHS: ReadonlySet<string> = new Set([...Object.values(ASSET_PATHS), ...Object.values(CHART_ASSET_PATHS)]);

/**
 * How the pages fail. Every page and its JSON read Redis afresh; the service starts before
 * Redis may answer, and its connection refuses commands until it is up. `gate` (a preHandler)
 * gives a connection coming up a moment, and answers 503 REDIS_UNAVAILABLE with Retry-After
 * itself when it is down (an HTML page saying so, JSON for the pages' own `/api/…` reads), so
 * no command fails and no plugin's own error handler (bull-board's) answers 500 instead.
 * `errorHandler`: a refusal (4xx) in plain text, Redis lost mid-request as the same 503, anything
 * else a bug (500). Failures are logged at most once per FAILURE_LOG_INTERVAL_MS: pages poll.
 */
export function pageFailures(redis: RedisClient, logger: Logger) {
  let lastFailureLog = Number.NEGATIVE_INFINITY;
  const log = (line: () => void) => {
    if (Date.now() - lastFailureLog < FAILURE_LOG_INTERVAL_MS) return;
    lastFailureLog = Date.now();
    line();
  };
  const unavailable = (request: FastifyRequest, reply: FastifyReply, reason: string): FastifyReply => {
    log(() => logger.warn({ url: request.url.split('?')[0], reason }, 'dashboard page not served: Redis is not answering (503)'));
    reply.header('retry-after', String(REDIS_RETRY_AFTER_SECONDS));
    return answer(reply, request, 503, 'Redis is not answering: the campaigns cannot be read now; this page works again once it does.');
  };
  const gate = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (STATIC_PATHS.has(request.routeOptions.url ?? '')) return undefined;
    await readyWithin(redis, CONNECT_WAIT_MS);
    return redis.status === 'ready' ? undefined : unavailable(request, reply, `the connection is ${redis.status}`);
  };
  const errorHandler = async (error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const status = error.statusCode ?? 500;
    if (status < 500) return reply.code(status).type('text/plain; charset=utf-8').send(`${error.message}\n`);
    if (isAppError(error, 'REDIS_UNAVAILABLE') || (await redisUnavailableError(error, redis)) !== undefined)
      return unavailable(request, reply, error.message);
    log(() => logger.error({ err: error, url: request.url.split('?')[0] }, 'dashboard page failed'));
    return answer(reply, request, 500, 'This page failed (a bug): the service log says why.');
  };
  return { gate, errorHandler };
}

function answer(reply: FastifyReply, request: FastifyRequest, status: 500 | 503, message: string): FastifyReply {
  const code = status === 503 ? 'REDIS_UNAVAILABLE' : 'INTERNAL_ERROR';
  if (request.url.startsWith('/api/')) return reply.code(status).header('cache-control', 'no-store').send({ error: message, code });
  const title = status === 503 ? 'Unavailable' : 'Failed';
  return sendPage(
    reply.header('cache-control', 'no-store'),
    page({ title, body: html`<h1>${title}</h1><p class="error">${message}</p>` }),
    status,
  );
}
