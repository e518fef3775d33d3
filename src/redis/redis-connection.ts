import { Redis } from 'ioredis';
import { AppError } from '../errors/app-error.js';

/**
 * A connection for BullMQ and the ledger. `maxRetriesPerRequest: null` is what BullMQ's
 * production guide asks of worker connections: commands wait through a Redis restart
 * instead of failing the job.
 */
export function createRedis(url: string, options: { forWorker?: boolean } = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: options.forWorker === true ? null : 20,
    enableReadyCheck: true,
    // Connects on first command: a command refused before touching Redis (bad CSV header) then quits at
    // once, instead of racing the ready check (which left a 2 s reconnect timer).
    lazyConnect: true,
  });
}

/** Fails fast with a sentence that says how to get a Redis, instead of retrying forever. */
export async function assertRedisAnswers(url: string, timeoutMs = 2000): Promise<void> {
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
  } catch (error) {
    // Redis error replies start with their code (NOAUTH, WRONGPASS): it answered, but not to us.
    const reason = lastError ?? error;
    const reply = reason instanceof Error ? (/^[A-Z]+/.exec(reason.message)?.[0] ?? '') : '';
    if (reply === 'NOAUTH' || reply === 'WRONGPASS') {
      throw new AppError(
        'REDIS_UNAVAILABLE',
        `Redis at ${redactUrl(url)} refused us: ${reply === 'NOAUTH' ? 'it needs a password' : 'wrong password'}. Put the password in REDIS_URL: redis://:PASSWORD@host:6379.`,
        { cause: error },
      );
    }
    throw new AppError(
      'REDIS_UNAVAILABLE',
      `Redis is not answering at ${redactUrl(url)}. Start one (with Docker: \`REDIS_PASSWORD=… docker compose up -d redis\`), or point REDIS_URL at yours.`,
      { cause: error },
    );
  } finally {
    probe.disconnect();
  }
}

/** A Redis URL may carry a password: never print it. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

/**
 * Waits at most `ms` for a connection that is still coming up (one that queues nothing while
 * connecting would fail the first command at once); with Redis away the caller's read then
 * fails fast instead of waiting longer.
 */
export async function readyWithin(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready' || redis.status === 'end') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.on('ready', done);
  });
}
