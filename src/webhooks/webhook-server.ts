import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Secret } from '../config/secret.js';
import { routerErrorOptions } from '../http/router-errors.js';
import type { Logger } from '../logging/logger.js';
import type { ScrapeResult } from '../metrics/service-metrics.js';
import { SIGNATURE_HEADER, parseSignatureHeader, verifySignature } from './signature.js';
import type { InboxAnswer, WebhookInbox } from './webhook-inbox.js';

/** Meta's payloads are up to 3 MB (reference §3.1); the margin is for its count of a "MB". */
export const WEBHOOK_MAX_BYTES = 3 * 1024 * 1024;
export const WEBHOOK_BODY_LIMIT = WEBHOOK_MAX_BYTES + 64 * 1024;
/** A flood of bad requests costs one log line per this long, not one per request. */
export const REJECTION_LOG_INTERVAL_MS = 10_000;
/** /readyz: Redis must answer PING within this long. */
export const READY_TIMEOUT_MS = 1000;
/** The inbox at WEBHOOK_INBOX_MAX: what Meta is told to wait (consumers work off thousands of entries a second). */
export const INBOX_FULL_RETRY_AFTER_SECONDS = 30;

export interface WebhookServerOptions {
  inbox: WebhookInbox;
  /** What Meta's handshake must present as hub.verify_token. */
  verifyToken: Secret;
  /** Signatures are checked against each (several while the app secret is rotated). */
  appSecrets: readonly Secret[];
  logger: Logger;
  /** Whether Redis answers now (PING); /readyz waits for it at most READY_TIMEOUT_MS. */
  redisReady: () => Promise<boolean>;
  /** Tests: the clock of the log throttle (default Date.now). */
  now?: () => number;
  /** GET /metrics (Prometheus): reads the figures from Redis at each scrape. Absent: no route. */
  metrics?: { scrape(): Promise<ScrapeResult> };
}

/**
 * The webhook service's HTTP face (reference §3.1). POST /webhook takes the body as raw bytes,
 * checks the signature over exactly those bytes before anything looks inside them, appends
 * them to the Redis inbox and answers 200 only once Redis has them: a crash after the answer
 * loses nothing, and a Redis that is away gets 503, which Meta retries. So does an inbox at
 * WEBHOOK_INBOX_MAX (a flood must not fill Redis); an exact replay of a body the inbox holds
 * gets 200 without being stored again (see src/redis/lua/webhooks/append.lua). Nothing is parsed
 * here: the consumers do that, so the request path stays short (Meta wants a median under
 * 250 ms) and a body that turns out unreadable is recorded by them instead of refused.
 */
export function buildWebhookServer(options: WebhookServerOptions): FastifyInstance {
  const { appSecrets, logger, redisReady } = options;
  const now = options.now ?? Date.now;
  if (appSecrets.length === 0) throw new RangeError('buildWebhookServer needs at least one app secret');
  const verifyTokenDigest = digest(options.verifyToken.reveal());
  const loggerInstance: FastifyBaseLogger = logger;
  const app = Fastify({
    loggerInstance,
    // A line per request would cost more than the request at Meta's rates.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: WEBHOOK_BODY_LIMIT,
    // Refusals before routing (a malformed URL, headers too large) as problem documents, like the API's.
    ...routerErrorOptions(),
  });

  // Every body arrives as the bytes sent: the signature is over them, and fastify's JSON parser
  // would both spend time on unverified input and hand us a re-serialisable object, not the bytes.
  app.removeAllContentTypeParsers();
  const keepBytes = (_request: FastifyRequest, body: Buffer, done: (error: null, body: Buffer) => void) => done(null, body);
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, keepBytes);
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, keepBytes);

  reportErrors(app, logger, new Throttle(REJECTION_LOG_INTERVAL_MS, now));
  addHandshakeRoute(app, logger, verifyTokenDigest, new Throttle(REJECTION_LOG_INTERVAL_MS, now));
  addIntakeRoute(app, options, now);

  app.get('/healthz', async (_request, reply) => reply.code(200).send({ ok: true }));

  if (options.metrics !== undefined) addMetricsRoute(app, options.metrics, logger, new Throttle(REJECTION_LOG_INTERVAL_MS, now));

  app.get('/readyz', async (_request, reply) => {
    const ready = await withTimeout(redisReady(), READY_TIMEOUT_MS);
    return ready ? reply.code(200).send({ ok: true }) : reply.code(503).send({ ok: false, redis: 'not answering' });
  });

  return app;
}

/** Oversized bodies (413) are logged at most once per interval; server errors always. */
function reportErrors(app: FastifyInstance, logger: Logger, tooLarge: Throttle): void {
  app.setErrorHandler((error: { statusCode?: number; code?: string; message: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 413) {
      const suppressed = tooLarge.take();
      if (suppressed !== undefined) {
        logger.warn(
          { ip: request.ip, contentLength: request.headers['content-length'], limit: WEBHOOK_BODY_LIMIT, suppressed },
          'webhook POST over the size limit refused (413)',
        );
      }
    } else if (status >= 500) {
      request.log.error({ err: error }, 'webhook request failed');
    }
    return reply.code(status).send({ error: status >= 500 ? 'internal error' : error.message });
  });
}

/** GET /webhook: Meta's subscription handshake, answered with its challenge when the verify token matches. */
function addHandshakeRoute(app: FastifyInstance, logger: Logger, verifyTokenDigest: Buffer, badHandshake: Throttle): void {
  app.get('/webhook', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const mode = query['hub.mode'];
    const token = query['hub.verify_token'];
    const challenge = query['hub.challenge'];
    const tokenMatches = typeof token === 'string' && timingSafeEqual(digest(token), verifyTokenDigest);
    if (mode === 'subscribe' && tokenMatches && typeof challenge === 'string' && challenge !== '') {
      logger.info('webhook handshake answered: Meta will post to this URL');
      return reply.code(200).type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(challenge);
    }
    const suppressed = badHandshake.take();
    if (suppressed !== undefined) {
      const why =
        mode !== 'subscribe'
          ? 'hub.mode is not subscribe'
          : !tokenMatches
            ? 'hub.verify_token is not WEBHOOK_VERIFY_TOKEN'
            : 'no hub.challenge';
      logger.warn({ ip: request.ip, why, suppressed }, 'webhook handshake refused (403)');
    }
    return reply.code(403).send({ error: 'verification failed' });
  });
}

/** POST /webhook: the signature is checked over the raw bytes, which are then appended to the inbox. */
function addIntakeRoute(app: FastifyInstance, options: WebhookServerOptions, now: () => number): void {
  const { inbox, appSecrets, logger } = options;
  const badSignature = new Throttle(REJECTION_LOG_INTERVAL_MS, now);
  const notStored = new Throttle(REJECTION_LOG_INTERVAL_MS, now);
  const inboxFull = new Throttle(REJECTION_LOG_INTERVAL_MS, now);
  const refuseSignature = (request: FastifyRequest, reply: FastifyReply, why: string) => {
    const suppressed = badSignature.take();
    // Never the body nor the header's value: only why, from where, and how many more since the last line.
    if (suppressed !== undefined) logger.warn({ ip: request.ip, why, suppressed }, 'webhook POST with a bad signature refused (401)');
    return reply.code(401).send({ error: 'invalid signature' });
  };

  app.post('/webhook', {
    // A POST without a well-formed signature header is refused before its body is read.
    onRequest: async (request, reply) => {
      if (parseSignatureHeader(signatureOf(request)) !== undefined) return;
      const why =
        request.headers[SIGNATURE_HEADER] === undefined ? 'no X-Hub-Signature-256 header' : 'malformed X-Hub-Signature-256 header';
      return refuseSignature(request, reply, why);
    },
    handler: async (request, reply) => {
      // When the request came in (before its body was read), on the wall clock: consumers measure their lag from it.
      const receivedAt = Math.round(Date.now() - reply.elapsedTime);
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = signatureOf(request);
      if (!verifySignature(raw, header, appSecrets)) return refuseSignature(request, reply, 'signature does not match the body');
      let answer: InboxAnswer;
      try {
        answer = await inbox.append(raw, receivedAt, parseSignatureHeader(header)?.toString('hex') ?? '', request.headers['content-type']);
      } catch (error) {
        const suppressed = notStored.take();
        if (suppressed !== undefined)
          logger.error(
            { reason: error instanceof Error ? error.message : String(error), suppressed },
            'webhook POST not stored (Redis): answered 503, Meta retries',
          );
        return reply.code(503).header('retry-after', '5').send({ error: 'not stored, try again' });
      }
      if (answer.outcome === 'full') {
        const suppressed = inboxFull.take();
        if (suppressed !== undefined)
          logger.warn(
            { held: answer.held, suppressed },
            'webhook inbox full (WEBHOOK_INBOX_MAX): POST answered 503, Meta retries once the consumers catch up',
          );
        return reply.code(503).header('retry-after', String(INBOX_FULL_RETRY_AFTER_SECONDS)).send({ error: 'inbox full, try again later' });
      }
      // Stored, or an exact replay of a body the inbox holds (not stored again): either way the inbox has it.
      return reply.code(200).send({ ok: true });
    },
  });
}

/** GET /metrics: open like /healthz; 503 while Redis does not answer, so Prometheus records a failed scrape. */
function addMetricsRoute(app: FastifyInstance, metrics: { scrape(): Promise<ScrapeResult> }, logger: Logger, notScraped: Throttle): void {
  app.get('/metrics', async (_request, reply) => {
    try {
      const scraped = await metrics.scrape();
      return reply.code(200).type(scraped.contentType).send(scraped.body);
    } catch (error) {
      const suppressed = notScraped.take();
      if (suppressed !== undefined)
        logger.warn(
          { reason: error instanceof Error ? error.message : String(error), suppressed },
          'metrics scrape failed (Redis): answered 503',
        );
      return reply.code(503).type('text/plain; charset=utf-8').send('metrics unavailable: Redis is not answering\n');
    }
  });
}

/** The signature header when it was sent once; a repeated header (an array) is not a signature. */
function signatureOf(request: FastifyRequest): string | undefined {
  const value = request.headers[SIGNATURE_HEADER];
  return typeof value === 'string' ? value : undefined;
}

/** Fixed-length digests, so the token comparison is constant-time whatever the lengths. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** false when `promise` rejects or takes longer than `ms`. */
async function withTimeout(promise: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Lets one occurrence through per interval and counts the rest: `take()` answers how many were
 * held back since the last one let through, or undefined to stay silent.
 */
class Throttle {
  #last = Number.NEGATIVE_INFINITY;
  #held = 0;

  constructor(
    readonly intervalMs: number,
    readonly now: () => number,
  ) {}

  take(): number | undefined {
    const at = this.now();
    if (at - this.#last < this.intervalMs) {
      this.#held++;
      return undefined;
    }
    const held = this.#held;
    this.#held = 0;
    this.#last = at;
    return held;
  }
}
