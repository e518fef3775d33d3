import type { FastifyInstance } from 'fastify';
import { hostname } from 'node:os';
import type { RedisClient } from '../src/redis/key-scope.js';
import { ledgerOptionsOf } from '../src/app/ledger-options.js';
import { replicasBehindWarning } from '../src/app/replicas-behind-warning.js';
import { loadConfig, sendRateOf, type Config } from '../src/config/config.js';
import type { Dashboard } from '../src/dashboard/dashboard.js';
import type { ServiceMetrics } from '../src/metrics/service-metrics.js';
import type { RedisLedger } from '../src/redis/ledger/redis-ledger.js';
import type { WebhookConsumer } from '../src/webhooks/webhook-consumer.js';
import type { RelayForwarder } from '../src/relay/relay-forwarder.js';
import type { AccountError } from '../src/campaigns/settle/account-errors.js';
import { checkDashboardExposure } from '../src/dashboard/exposure.js';
import { AppError } from '../src/errors/app-error.js';
import { boundedClose, type BoundedClose } from '../src/http/bounded-close.js';
import { listenFailure, urlHost } from '../src/http/listen.js';
import { createLogger, type Logger } from '../src/logging/logger.js';

/** REDIS_WAIT_REPLICAS' warning for the intake: a webhook is answered 200 before its body is on the replicas. */
const INBOX_BEHIND =
  'REDIS_WAIT_REPLICAS: fewer replicas than asked have the webhooks taken in (none connected, or not within 1 s); ' +
  'Meta is answered anyway, and a failover now could lose a webhook it will not send again';

export interface ServeOptions {
  port: number;
  host: string;
}

/** A running webhook service. */
export interface RunningService {
  /** e.g. http://127.0.0.1:8080 (no trailing slash); Meta's callback URL is `${url}/webhook` behind your HTTPS proxy. */
  url: string;
  port: number;
  app: FastifyInstance;
  /** Stops taking requests (those in flight get CLOSE_GRACE_MS, 5 s, to finish), then closes Redis. */
  close(): Promise<void>;
}

/**
 * Starts `campaign serve`: the webhook intake. Unlike the other commands it starts whether or
 * not Redis answers right now (it is a long-lived service behind a load balancer, and Redis
 * may come up after it): until Redis answers, /readyz says 503 and POST /webhook answers 503,
 * which Meta retries. Its settings are checked first, so a missing secret stops it at once.
 */
export async function startService(
  options: ServeOptions,
  env: Record<string, string | undefined> = process.env,
  logger?: Logger,
): Promise<RunningService> {
  checkListenOptions(options);
  const config = loadConfig(env, ['WHATSAPP_APP_SECRET', 'WEBHOOK_VERIFY_TOKEN']);
  const log = logger ?? createLogger(config.logLevel);
  const verifyToken = config.webhook.verifyToken;
  if (verifyToken === undefined) throw new AppError('CONFIG_INVALID', 'WEBHOOK_VERIFY_TOKEN: required for this command but not set');
  // The campaigns page can pause and cancel campaigns: beyond loopback only behind a password.
  checkDashboardExposure(options.host, config.dashboard.password);
  // Loaded once the settings are known good: a mistake in them is reported without paying for fastify.
  const { buildWebhookServer } = await import('../src/webhooks/webhook-server.js');
  const { RedisWebhookInbox, createWebhookRedis } = await import('../src/webhooks/webhook-inbox.js');
  const redis = createWebhookRedis(config, log);
  // A second at most for Redis to come up: up, the service waits for its other connections below; away, it starts without.
  const { readyWithin } = await import('../src/redis/redis-connection.js');
  await readyWithin(redis, 1000);
  const parts = await openServiceParts(config, log);
  let app: FastifyInstance | undefined;
  let port: number;
  let closer: BoundedClose;
  try {
    const inbox = new RedisWebhookInbox(redis, config.queuePrefix, {
      max: config.webhook.inboxMax,
      relay: parts.relay !== undefined,
      replicas: { replicas: config.redisWaitReplicas, onBehind: replicasBehindWarning(log, INBOX_BEHIND) },
    });
    app = buildWebhookServer({
      inbox,
      verifyToken,
      appSecrets: config.webhook.appSecrets,
      logger: log,
      redisReady: () => inbox.ready(),
      metrics: parts.metrics,
    });
    await parts.dashboard.register(app);
    await parts.api.register(app);
    // GET /c/{token}: tracked links (`send --track-clicks`), for their recipients: outside the pages' password.
    const { registerClickRoute } = await import('../src/clicks/click-route.js');
    const { RedisClickLinks } = await import('../src/redis/clicks/redis-click-links.js');
    registerClickRoute(app, new RedisClickLinks(redis, config.queuePrefix), log);
    closer = boundedClose(app.server);
    // Their connections refuse commands until they are up (no offline queue): the first request and read wait for them, not fail.
    // (The inbox's connection is not up: Redis is away, and the service starts without waiting more.)
    if (redis.status === 'ready') await parts.connected();
    port = await listenOn(app, options);
    parts.consumer.start();
    parts.relay?.start();
  } catch (error) {
    // Whatever failed, the connection must not keep the process alive (it reconnects forever).
    await app?.close().catch(() => undefined);
    closeRedis(redis);
    await parts.close();
    throw error;
  }
  return runningService(app, closer, port, options.host, async () => {
    await parts.close();
    await redis.quit().catch(() => undefined);
    closeRedis(redis);
  });
}

/** What the service runs besides its intake: the webhook consumer, /metrics and the dashboard, each on its own connections. */
interface ServiceParts {
  consumer: WebhookConsumer;
  /** RELAY_WEBHOOKS' forwarder; undefined when it names no target. */
  relay: RelayForwarder | undefined;
  metrics: ServiceMetrics;
  dashboard: Dashboard;
  /** The HTTP API under /api/v1. */
  api: { register(app: FastifyInstance): Promise<void> };
  /** Resolves once every connection is up, or after a second (Redis away: the service starts anyway). */
  connected(): Promise<void>;
  /** Stops the consumer, then closes the metrics, the dashboard and their connections. */
  close(): Promise<void>;
}

async function openServiceParts(config: Config, log: Logger): Promise<ServiceParts> {
  const { createWebhookRedis } = await import('../src/webhooks/webhook-inbox.js');
  const { RedisLedger } = await import('../src/redis/ledger/redis-ledger.js');
  // Fail-fast connections like the inbox's: with Redis away their commands fail at once and the loops retry.
  // (They stay quiet about Redis coming and going: the inbox's connection says it once for the service.)
  const { silentLogger } = await import('../src/logging/logger.js');
  const connect = () => createWebhookRedis(config, silentLogger());
  const ledgerOn = (redis: RedisClient) => new RedisLedger(redis, config.queuePrefix, ledgerOptionsOf(config, log));
  // The consumer that applies what the inbox holds: one connection blocks on the stream, one is the ledger's.
  const readerRedis = connect();
  const ledgerRedis = connect();
  const metricsRedis = connect();
  const dashboardRedis = connect();
  const apiRedis = connect();
  const relay = await relayForwarder(config, log, connect);
  const connections = [readerRedis, ledgerRedis, metricsRedis, dashboardRedis, apiRedis, ...(relay?.connections ?? [])];
  const sendRate = (phoneNumberId: string) => sendRateOf(config.send, phoneNumberId);
  const consumer = await webhookConsumer(config, log, readerRedis, ledgerOn(ledgerRedis));
  // GET /metrics: read from Redis at each scrape.
  const { createServiceMetrics } = await import('../src/metrics/service-metrics.js');
  const metrics = createServiceMetrics({
    redis: metricsRedis,
    prefix: config.queuePrefix,
    retentionMs: config.metricsRetentionMs,
    sendRate,
    ledger: ledgerOn(metricsRedis),
    relayTargets: config.relayTargets.map((target) => target.name),
  });
  // The campaigns page (/) and bull-board (/queues).
  const { createDashboard } = await import('../src/dashboard/dashboard.js');
  const { password } = config.dashboard;
  const dashboard = createDashboard({
    redis: dashboardRedis,
    prefix: config.queuePrefix,
    ledger: ledgerOn(dashboardRedis),
    credentials: password === undefined ? undefined : { user: config.dashboard.user, password },
    logger: log,
    sendRate,
    portfolios: config.portfolios,
    hooks: { config, redis: dashboardRedis },
  });
  // The HTTP API (/api/v1): the pages call it too, with their CSRF token.
  const { createHttpApi } = await import('../src/api/http-api.js');
  const api = createHttpApi({ config, logger: log, redis: apiRedis, ledger: ledgerOn(apiRedis), sessions: dashboard.sessions });
  // Outbound hooks (docs/events.md): events to the hooks' outboxes, and each hook's delivery, on their own connection.
  const hooksRedis = connect();
  connections.push(hooksRedis);
  const { startOutboundHooks } = await import('../src/redis/hooks/outbound-hooks.js');
  const hooks = startOutboundHooks({ redis: hooksRedis, prefix: config.queuePrefix, retryMs: config.hookRetryMs, logger: log });
  const close = async () => {
    // A read blocks up to 1 s; with Redis away a command waits for it: then the disconnect below ends it.
    await Promise.race([consumer.stop(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    await hooks.stop();
    await relay?.forwarder.stop();
    await metrics.close();
    await Promise.race([dashboard.close(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    for (const connection of connections) {
      if (connection.status === 'ready') await connection.quit().catch(() => undefined);
      closeRedis(connection);
    }
  };
  const { readyWithin } = await import('../src/redis/redis-connection.js');
  const connected = async () => void (await Promise.all(connections.map((connection) => readyWithin(connection, 1000))));
  return { consumer, relay: relay?.forwarder, metrics, dashboard, api, connected, close };
}

/** RELAY_WEBHOOKS: each accepted webhook forwarded to every target (src/relay), on a connection of its own; none, nothing. */
async function relayForwarder(config: Config, log: Logger, connect: () => RedisClient) {
  const metaSecret = config.webhook.appSecrets[0];
  if (config.relayTargets.length === 0 || metaSecret === undefined) return undefined;
  const { RelayForwarder } = await import('../src/relay/relay-forwarder.js');
  const redis = connect();
  const forwarder = new RelayForwarder({
    redis,
    prefix: config.queuePrefix,
    targets: config.relayTargets,
    metaSecret,
    retryMs: config.hookRetryMs,
    logger: log,
  });
  return { forwarder, connections: [redis] };
}

async function webhookConsumer(config: Config, log: Logger, readerRedis: RedisClient, ledger: RedisLedger): Promise<WebhookConsumer> {
  const { WebhookConsumer } = await import('../src/webhooks/webhook-consumer.js');
  const { optOutMatcher } = await import('../src/webhooks/webhook-events.js');
  const { WebhookMetrics } = await import('../src/redis/webhooks/webhook-metrics.js');
  const { RedisUserLinks } = await import('../src/redis/webhooks/redis-user-links.js');
  return new WebhookConsumer({
    redis: readerRedis,
    prefix: config.queuePrefix,
    ledger,
    logger: log,
    consumer: `${hostname()}:${process.pid}`,
    isOptOut: optOutMatcher(config.webhook.optOutKeywords),
    parkMs: config.webhook.parkMs,
    metrics: new WebhookMetrics(config.queuePrefix),
    // Its calls come between the reader's blocking reads, never during one.
    links: new RedisUserLinks(readerRedis, config.queuePrefix, config.portfolios, config.retentionMs),
    onLimitUpdates: await limitUpdatesHandler(config, log, readerRedis, ledger),
    onAccountErrors: await accountErrorsHandler(config, log, readerRedis, ledger),
  });
}

/** A change's `errors[]`: kept for the campaigns page; a halting code pauses the number's campaigns. */
async function accountErrorsHandler(config: Config, log: Logger, redis: RedisClient, ledger: RedisLedger) {
  const { settleAccountErrors } = await import('../src/campaigns/settle/account-errors.js');
  const { RedisAccountErrors } = await import('../src/redis/metrics/redis-account-errors.js');
  const errorLog = new RedisAccountErrors(redis, config.queuePrefix);
  return async (errors: readonly AccountError[]): Promise<void> => {
    await settleAccountErrors({ ledger, log: errorLog, logger: log }, errors);
  };
}

/** `business_capability_update` / `account_update`: the portfolio's new messaging limit, stored where its feeds read it. */
async function limitUpdatesHandler(config: Config, log: Logger, redis: RedisClient, ledger: RedisLedger) {
  const { limitWebhookHandler } = await import('../src/portfolios/limit-webhooks.js');
  const { fetchMessagingLimit } = await import('../src/cloud-api/messaging-limit-client.js');
  const { accessToken, api } = config;
  return limitWebhookHandler({
    redis,
    prefix: config.queuePrefix,
    portfolios: config.portfolios,
    fixed: config.messagingLimits,
    ledger,
    fetch:
      accessToken === undefined
        ? undefined
        : (phoneNumberId) =>
            fetchMessagingLimit({ baseUrl: api.baseUrl, apiVersion: api.version, phoneNumberId, accessToken, timeoutMs: api.timeoutMs }),
    logger: log,
  });
}

/** The handle of a listening service: close() once, however often it is called; the server first, so requests in flight finish. */
function runningService(
  app: FastifyInstance,
  closer: BoundedClose,
  port: number,
  host: string,
  closeRest: () => Promise<void>,
): RunningService {
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(host)}:${port}`,
    port,
    app,
    close: () =>
      (closing ??= (async () => {
        // First the server (requests in flight finish their XADD, within a grace; new ones get 503), then Redis.
        // Bounded: a connection with nothing in flight would otherwise hold the close up to the keep-alive timeout, or forever.
        await closer.close(() => app.close());
        await closeRest();
      })()),
  };
}

/** `campaign serve`: the webhook service until SIGTERM/SIGINT. */
export async function runServeUntilSignal(options: ServeOptions): Promise<void> {
  // The handlers come first: a supervisor may signal the moment it reads the "listening" line.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  const service = await startService(options);
  console.error(
    `Webhook service listening on ${service.url}: Meta posts to ${service.url}/webhook (GET /healthz, GET /readyz, GET /metrics); ` +
      `campaigns page ${service.url}/, queue dashboard ${service.url}/queues`,
  );
  await stopped;
  await service.close();
  // Everything is closed; an ioredis connect attempt under way when Redis is down keeps its
  // connect-timeout timer (up to 2 s) after disconnect(): it must not hold the exit.
  setTimeout(() => process.exit(process.exitCode ?? 0), 100).unref();
}

/** Listens as asked; answers the port it got. */
async function listenOn(app: FastifyInstance, options: ServeOptions): Promise<number> {
  try {
    await app.listen({ port: options.port, host: options.host });
  } catch (error) {
    throw listenFailure(error, options.host, options.port);
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('The webhook service did not get a TCP address');
  return address.port;
}

/** Drops the connection (and its reconnect timer) whatever state it is in. */
function closeRedis(redis: RedisClient): void {
  if (redis.status !== 'end') redis.disconnect();
}

function checkListenOptions(options: ServeOptions): void {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new AppError('OPTION_INVALID', `--port ${options.port}: give a whole number from 0 to 65535 (0 picks a free one)`);
  }
  if (options.host.trim() === '') {
    throw new AppError('OPTION_INVALID', '--host is empty: give an address of this host, e.g. 127.0.0.1 (0.0.0.0 listens on every one)');
  }
}
