import { registerTemplateTtlRoute } from './template-ttl-route.js';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { servedVersion, unknownPathError } from './api-versions.js';
import { registerControlRoutes } from './control-routes.js';
import type { GraphErrorReply } from './graph-error.js';
import { isMarkReadBody } from './mark-as-read.js';
import { registerMediaRoutes } from './media-routes.js';
import { NOT_JSON, accessTokenParam, graphPaths, urlPath, type VersionParams } from './route-support.js';
import type { SandboxRuntime, SendEndpoint } from './sandbox-runtime.js';
import { registerTemplateRoutes } from './templates-route.js';
import { registerPhoneNumberRoutes } from './phone-number-route.js';
import type { WebhookSink } from './webhook-poster.js';
import type { RequestLog } from './request-log.js';

/**
 * The sandbox's HTTP face: Meta's paths, Meta's answers. Per-request work is kept to the
 * decision itself (no request logging, no schema compilation, plain JSON.parse), because
 * benchmarks push thousands of sends a second through it on two cores.
 */
export interface SandboxServer {
  app: FastifyInstance;
  /** Releases every reply held by the timeout fault, then closes the server. */
  close(): Promise<void>;
}

export function buildServer(
  runtime: SandboxRuntime,
  logger: Logger | undefined,
  webhooks?: WebhookSink,
  requestLog?: RequestLog,
): SandboxServer {
  // Typed as fastify's base logger so the app is the plain FastifyInstance routes expect.
  const loggerInstance: FastifyBaseLogger | undefined = logger;
  const app = Fastify({
    ...(loggerInstance === undefined ? { logger: false } : { loggerInstance }),
    // Two info lines per request would cost more than the request at benchmark rates.
    logController: new LogController({ disableRequestLogging: true }),
  });
  // Every request shares the sandbox's logger: fastify's default builds a child logger per request, which at a paced
  // 1,000 msg/s was a visible share of the sandbox's work, for a request ID only the error handler below would log.
  app.setChildLoggerFactory((base) => base);
  const held = new Set<ServerResponse>();
  // Before any route, so every one (and the not-found handler) is captured; nothing is hooked when the log is off.
  requestLog?.captureExchanges(app);

  // Parse every body ourselves: fastify would answer bad JSON with its own error shape
  // before the route could check the token, and Meta checks the token first.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      done(null, NOT_JSON);
    }
  });

  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error, reqId: request.id }, 'sandbox request failed');
    const spec = status >= 500 ? { code: 131000, details: 'Internal sandbox error' } : { code: 100, details: error.message };
    const answer = runtime.reject({ ...spec, status });
    return reply.code(answer.status).send(answer.body);
  });

  app.setNotFoundHandler((request, reply) => {
    const answer = unknownPathError(urlPath(request.url));
    return reply.code(answer.status).send(answer.body);
  });

  registerMessagesRoute(app, runtime, held, 'messages');
  registerMessagesRoute(app, runtime, held, 'marketing_messages');

  registerTemplateRoutes(app, runtime);
  registerTemplateTtlRoute(app, runtime);
  registerPhoneNumberRoutes(app, runtime);
  registerMediaRoutes(app, runtime);
  registerControlRoutes(app, runtime, webhooks);

  return {
    app,
    async close() {
      for (const response of held) response.destroy();
      held.clear();
      await app.close();
    },
  };
}

/**
 * POST /{version}/{phone-number-id}/messages (the version is optional), and the Marketing
 * Messages API's /marketing_messages (same body, marketing templates only): the token first,
 * then the faults, then the send; timeouts are held in `held`. A /messages body with
 * `status: "read"` marks a user's message as read instead (mark-as-read.ts).
 */
function registerMessagesRoute(app: FastifyInstance, runtime: SandboxRuntime, held: Set<ServerResponse>, endpoint: SendEndpoint): void {
  for (const path of graphPaths(`/:phoneNumberId/${endpoint}`)) {
    app.post<{ Params: VersionParams & { phoneNumberId: string } }>(path, async (request, reply) => {
      // A version Graph does not serve is a path it cannot route: answered before the token, as unknown paths are.
      const served = servedVersion(request.params.version, runtime.now());
      if (served === undefined) {
        const unknown = unknownPathError(urlPath(request.url));
        return reply.code(unknown.status).send(unknown.body);
      }
      const latency = runtime.faults.latencyMs;
      let answer: GraphErrorReply | ReturnType<SandboxRuntime['send']> | ReturnType<SandboxRuntime['markRead']>;
      const tokenError = runtime.tokens.check(request.headers.authorization, accessTokenParam(request.query));
      if (tokenError !== undefined) {
        answer = runtime.count(tokenError);
      } else {
        const fault = runtime.admitRequest(request.params.phoneNumberId);
        if (fault.kind === 'timeout') {
          // Never answered: held until the client gives up or close() destroys it.
          reply.hijack();
          held.add(reply.raw);
          reply.raw.once('close', () => held.delete(reply.raw));
          return;
        }
        if (fault.kind === 'error') answer = runtime.reject(fault.error);
        else if (request.body === NOT_JSON) answer = runtime.reject({ code: 100, details: 'The request body is not JSON' });
        else if (endpoint === 'messages' && isMarkReadBody(request.body)) answer = runtime.markRead(request.body);
        else answer = runtime.send(request.params.phoneNumberId, request.body, endpoint, served.major);
      }
      if (latency > 0) await sleep(latency);
      return reply.code(answer.status).send(answer.body);
    });
  }
}
