import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/key-scope.js';
import { createCluster, redactUrl, type RedisTarget } from '../redis/redis-connection.js';
import { webhookKeys } from '../redis/webhooks/webhook-keys.js';
import { RedisWebhookIntake } from '../redis/webhooks/redis-webhook-intake.js';
import { ReplicaWait, type ReplicaWaitOptions } from '../redis/replica-wait.js';
import { DEFAULT_WEBHOOK_INBOX_MAX } from '../config/config.js';

/**
 * The stream every signed webhook POST is appended to before it is answered 200: entries
 * `body` (the raw bytes as received), `at` (ms received) and `sig` (its signature). Consumers
 * read it with XREADGROUP and remove what they applied (XACK + XDEL); nothing here trims it,
 * so an entry the service acknowledged to Meta is never dropped for space: past
 * WEBHOOK_INBOX_MAX entries a body is refused instead (503, Meta retries later).
 */
export function webhookInboxKey(prefix: string): string {
  return webhookKeys(prefix).inbox;
}

/**
 * What the inbox did with a body: `stored`; `replay`, an exact replay (same signature) of a
 * body it holds unconsumed, not stored again; `full`, refused at the bound (`held`: entries
 * it holds), nothing stored.
 */
export type InboxAnswer = { outcome: 'stored' } | { outcome: 'replay' } | { outcome: 'full'; held: number };

/** Where the webhook service puts what it accepted. */
export interface WebhookInbox {
  /**
   * Resolves once the body is in Redis (and on the replicas REDIS_WAIT_REPLICAS asks for, or a second has
   * passed), or once Redis has said it holds it already or is full
   * (then, and only then, Meta gets its answer); rejects fast when Redis is away. `signature`:
   * the body's HMAC-SHA256 in hex, checked before; `contentType`: the request's, forwarded with the body when relay is on.
   */
  append(raw: Buffer, receivedAt: number, signature: string, contentType?: string): Promise<InboxAnswer>;
}

/** The inbox's settings: see the constructor. */
export interface WebhookInboxOptions {
  max?: number;
  relay?: boolean;
  replicas?: ReplicaWaitOptions;
}

export class RedisWebhookInbox implements WebhookInbox {
  readonly #redis: RedisClient;
  readonly #intake: RedisWebhookIntake;
  readonly #replicas: ReplicaWait;
  readonly #inboxKey: string;

  /**
   * `max`: WEBHOOK_INBOX_MAX, the entries the inbox may hold unconsumed. `relay`: RELAY_WEBHOOKS names targets, so each
   * stored body also goes to the relay stream (src/relay), in the same step. `replicas`: REDIS_WAIT_REPLICAS, the replicas
   * a stored body must be on before Meta is answered (none by default).
   */
  constructor(redis: RedisClient, prefix: string, options: WebhookInboxOptions = {}) {
    this.#redis = redis;
    this.#intake = new RedisWebhookIntake(redis, prefix, { max: options.max ?? DEFAULT_WEBHOOK_INBOX_MAX, relay: options.relay ?? false });
    this.#replicas = new ReplicaWait(redis, options.replicas ?? { replicas: 0 });
    this.#inboxKey = webhookInboxKey(prefix);
  }

  async append(raw: Buffer, receivedAt: number, signature: string, contentType?: string): Promise<InboxAnswer> {
    // One script: the replay check, the bound, the XADD and the relay's (no MAXLEN: trimming is the consumers', after they applied it).
    const answer = await this.#intake.append(raw, signature, receivedAt, contentType);
    if (answer.outcome === 'full') return { outcome: 'full', held: answer.held };
    // Meta does not send an answered webhook again: a body a failover took back would be lost for good. A replay waits too:
    // the body it repeats may be one whose wait failed.
    await this.#replicas.replicated(this.#inboxKey);
    return { outcome: answer.outcome };
  }

  /** Whether Redis answers PING within `timeoutMs` (for /readyz). Never throws. */
  async ready(timeoutMs = 1000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([this.#redis.ping().then((answer) => answer === 'PONG'), late]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The webhook service's own connection, built to fail fast rather than wait: Meta is better
 * served by a quick 503 (it retries) than by a request held while Redis is away. No offline
 * queue (a command while disconnected is refused at once), no resend of a command in flight
 * when the connection drops (maxRetriesPerRequest 0 rejects it), and a command timeout for a
 * Redis that accepts the connection but does not answer. It keeps reconnecting in the
 * background, so the service recovers on its own when Redis is back.
 */
export function createWebhookRedis(target: RedisTarget | string, logger: Logger, options: { commandTimeoutMs?: number } = {}): RedisClient {
  const url = typeof target === 'string' ? target : target.redisUrl;
  const settings: RedisOptions = {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? 5000,
    connectTimeout: 2000,
    // disconnect() while reconnecting leaves a timer this long on a socket already closed: it held SIGTERM's exit 2 s.
    disconnectTimeout: 200,
    // At most one attempt a second while Redis is away, so it is back in use within a second.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  };
  const nodes = typeof target === 'string' ? undefined : target.redisClusterNodes;
  const redis: RedisClient = nodes === undefined ? new Redis(url, settings) : createCluster(url, nodes, settings);
  // One line when the connection is lost and one when it is back, not one per reconnect attempt.
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(
      { redis: redactUrl(url), reason: error.message },
      'Redis is not answering: /readyz and POST /webhook answer 503 (Meta retries) until it does',
    );
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ redis: redactUrl(url) }, 'Redis answers again: webhooks are taken in');
  });
  return redis;
}
