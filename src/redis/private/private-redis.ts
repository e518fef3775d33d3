import { AppError } from '../../errors/app-error.js';

/** A Redis started for one run (the demo, a test suite) and stopped by whoever started it. */
export interface PrivateRedis {
  url: string;
  /** Which kind it is and how to find it (path, PID, port), for the one line that says so. */
  description: string;
  stop(): Promise<void>;
}

/** One way to get a private Redis. `start` rejects with the reason it cannot, in a phrase. */
export interface RedisStarter {
  name: string;
  start(): Promise<PrivateRedis>;
}

/**
 * Tries each starter in order and returns the first Redis that starts. When none does, the
 * error names every starter with its reason, and the ways to provide a Redis instead.
 */
export async function startPrivateRedis(starters: readonly RedisStarter[]): Promise<PrivateRedis> {
  const reasons: string[] = [];
  for (const starter of starters) {
    try {
      return await starter.start();
    } catch (error) {
      reasons.push(`${starter.name}: ${oneLine(error)}`);
    }
  }
  throw new AppError(
    'REDIS_UNAVAILABLE',
    `No Redis answers and none could be started (${reasons.join('; ')}). ` +
      'Install redis-server (apt-get install redis-server, brew install redis), start Docker, or set REDIS_URL to a running Redis.',
  );
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 300);
}
