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
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    throw new AppError(
      'REDIS_UNAVAILABLE',
      `Redis is not answering at ${redactUrl(url)}. Start one with \`docker compose up -d redis\`, or point REDIS_URL at yours.`,
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
