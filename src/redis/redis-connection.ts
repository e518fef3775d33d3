import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { AppError } from '../errors/app-error.js';
import type { RedisClient } from './key-scope.js';

/** Where Redis is: one server at `redisUrl`, or a cluster seeded by `redisClusterNodes` (REDIS_CLUSTER_NODES). */
export interface RedisTarget {
  redisUrl: string;
  redisClusterNodes?: readonly { host: string; port: number }[] | undefined;
}

/**
 * A connection for BullMQ and the ledger. `maxRetriesPerRequest: null` is what BullMQ's
 * production guide asks of worker connections: commands wait through a Redis restart
 * instead of failing the job.
 */
export function createRedis(target: RedisTarget | string, options: { forWorker?: boolean } = {}): RedisClient {
  const settings: RedisOptions = {
    maxRetriesPerRequest: options.forWorker === true ? null : 20,
    enableReadyCheck: true,
    // Connects on first command: a command refused before touching Redis (bad CSV header) then quits at
    // once, instead of racing the ready check (which left a 2 s reconnect timer).
    lazyConnect: true,
  };
  if (typeof target === 'string') return new Redis(target, settings);
  return target.redisClusterNodes === undefined
    ? new Redis(target.redisUrl, settings)
    : createCluster(target.redisUrl, target.redisClusterNodes, settings);
}

/**
 * ioredis' Cluster client. REDIS_URL gives each node's user, password and TLS. During a
 * failover, commands that meet a closed connection, CLUSTERDOWN or TRYAGAIN are retried
 * after a short delay (with `maxRetriesPerRequest: null`, until the replica has taken over)
 * instead of failing their job; MOVED and ASK (resharding) are followed.
 */
export function createCluster(url: string, nodes: readonly { host: string; port: number }[], redisOptions: RedisOptions): Cluster {
  const parsed = new URL(url);
  const auth: RedisOptions = {
    ...(parsed.username === '' ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === '' ? {} : { password: decodeURIComponent(parsed.password) }),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  const options: ClusterOptions = {
    redisOptions: { ...redisOptions, ...auth, lazyConnect: false },
    lazyConnect: redisOptions.lazyConnect ?? false,
    enableReadyCheck: true,
    // Reads and writes both go to masters: the ledger reads what it just wrote.
    scaleReads: 'master',
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 200,
    retryDelayOnMoved: 50,
    maxRedirections: 32,
    slotsRefreshTimeout: 2000,
    // Reconnect to the cluster forever (as a single connection does), at most once a second.
    clusterRetryStrategy: (attempt) => Math.min(100 * attempt, 1000),
  };
  return new Cluster(
    nodes.map((node) => ({ host: node.host, port: node.port })),
    options,
  );
}

/** Fails fast with a sentence that says how to get a Redis, instead of retrying forever. */
export async function assertRedisAnswers(target: RedisTarget | string, timeoutMs = 2000): Promise<void> {
  if (typeof target !== 'string' && target.redisClusterNodes !== undefined) {
    await assertClusterAnswers(target.redisUrl, target.redisClusterNodes, timeoutMs);
    return;
  }
  const url = typeof target === 'string' ? target : target.redisUrl;
  const probe = await probeNode(url, timeoutMs);
  probe.disconnect();
}

/**
 * A cluster answers when one of its seed nodes answers and says the cluster is ok: ioredis
 * learns the other nodes from it. A seed that is a plain Redis, or a cluster still forming,
 * is refused with what to do.
 */
async function assertClusterAnswers(url: string, nodes: readonly { host: string; port: number }[], timeoutMs: number): Promise<void> {
  let lastError: unknown;
  for (const node of nodes) {
    const nodeUrl = new URL(url);
    nodeUrl.hostname = node.host.includes(':') ? `[${node.host}]` : node.host;
    nodeUrl.port = String(node.port);
    let probe: Redis;
    try {
      probe = await probeNode(nodeUrl.toString(), timeoutMs);
    } catch (error) {
      // This seed is away or refuses us: another may answer.
      lastError = error;
      continue;
    }
    // The node answered: what it says about the cluster is the verdict.
    try {
      const info = await probe.cluster('INFO').catch((error: unknown) => {
        throw new AppError(
          'REDIS_UNAVAILABLE',
          `REDIS_CLUSTER_NODES names ${node.host}:${node.port}, which is not a cluster node ` +
            `(${error instanceof Error ? error.message : String(error)}). ` +
            "Unset REDIS_CLUSTER_NODES to use a single Redis at REDIS_URL, or list the cluster's nodes.",
        );
      });
      const state = /cluster_state:(\w+)/.exec(String(info))?.[1];
      if (state !== 'ok') {
        throw new AppError(
          'REDIS_UNAVAILABLE',
          `The Redis Cluster at ${node.host}:${node.port} says cluster_state:${state ?? '?'}; ` +
            `it cannot take commands until every slot is served.`,
        );
      }
      return;
    } finally {
      probe.disconnect();
    }
  }
  if (lastError instanceof AppError && nodes.length === 1) throw lastError;
  throw new AppError(
    'REDIS_UNAVAILABLE',
    `No node of REDIS_CLUSTER_NODES answers (${nodes.map((n) => `${n.host}:${n.port}`).join(', ')}).`,
    { cause: lastError },
  );
}

/** A connected probe of one server, or the reason it cannot be used, in a sentence. */
async function probeNode(url: string, timeoutMs: number): Promise<Redis> {
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
  });
  // The reason (say, NOAUTH) arrives as an 'error' event; the failed command only says the connection closed.
  let lastError: unknown;
  probe.on('error', (error) => (lastError = error));
  try {
    await probe.connect();
    await probe.ping();
    return probe;
  } catch (error) {
    probe.disconnect();
    // Redis error replies start with their code (NOAUTH, WRONGPASS): it answered, but not to us.
    const reason = lastError ?? error;
    const reply = reason instanceof Error ? (/^[A-Z]+/.exec(reason.message)?.[0] ?? '') : '';
    if (reply === 'NOAUTH' || reply === 'WRONGPASS') {
      throw new AppError(
        'REDIS_UNAVAILABLE',
        `Redis at ${redactUrl(url)} refused us: ${reply === 'NOAUTH' ? 'it needs a password' : 'wrong password'}. ` +
          `Put the password in REDIS_URL: redis://:PASSWORD@host:6379.`,
        { cause: error },
      );
    }
    throw new AppError(
      'REDIS_UNAVAILABLE',
      `Redis is not answering at ${redactUrl(url)}. Start one (with Docker: \`REDIS_PASSWORD=… ` +
        `docker compose up -d redis\`), or point REDIS_URL at yours.`,
      { cause: error },
    );
  }
}

/** A Redis URL may carry a password: never print it. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

/**
 * Waits at most `ms` for a connection that is still coming up (one that queues nothing while
 * connecting would fail the first command at once); with Redis away the caller's read then
 * fails fast instead of waiting longer. However many callers wait at once (every request while
 * Redis is away), the connection has one listener for them all.
 */
export async function readyWithin(redis: RedisClient, ms: number): Promise<void> {
  if (redis.status === 'ready' || redis.status === 'end') return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([nextReady(redis), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Whether a connection takes commands now: up, or one that connects at its first command (a
 * fail-fast one refuses them while it connects).
 */
export function connectionReady(redis: RedisClient): boolean {
  return redis.status === 'ready' || redis.status === 'wait';
}

/** Per connection, the wait for its next `ready` that every readyWithin shares. */
const readyWaits = new WeakMap<RedisClient, Promise<void>>();

function nextReady(redis: RedisClient): Promise<void> {
  let wait = readyWaits.get(redis);
  if (wait === undefined) {
    wait = new Promise<void>((resolve) =>
      redis.once('ready', () => {
        readyWaits.delete(redis);
        resolve();
      }),
    );
    readyWaits.set(redis, wait);
  }
  return wait;
}

/** Runs a pipeline; any command's error fails the whole read. */
export async function execPipeline<T extends unknown[]>(pipeline: ReturnType<RedisClient['pipeline']>): Promise<T> {
  const replies = await pipeline.exec();
  if (replies === null) throw new Error('Redis pipeline aborted');
  return replies.map(([error, value]) => {
    if (error !== null) throw error;
    return value;
  }) as T;
}
