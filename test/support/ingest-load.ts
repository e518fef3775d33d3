import { once } from 'node:events';
import { Redis } from 'ioredis';
import { CliProcess } from './cli-process.js';
import { removePrefix } from './redis.js';

/** `campaign send` of one file again and again, as load beside what a test measures. */
export interface IngestLoad {
  /** Sends completed so far. */
  rounds(): number;
  /** The sends that did not exit 0, with their output. */
  failures(): string[];
  /** Stops the running send (SIGKILL, by its PID), waits for the loop to end and removes what it wrote. */
  stop(): Promise<void>;
}

/**
 * Ingests `file` with `sendArgs` under `prefix` (no worker drains it) until stopped; after each
 * send the prefix is removed, so Redis holds one ingest's rows at most however long the load lasts.
 */
export function startIngestLoad(file: string, sendArgs: readonly string[], env: Record<string, string>, prefix: string): IngestLoad {
  const redis = new Redis(env.REDIS_URL ?? '', { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  let stopped = false;
  let current: CliProcess | undefined;
  let rounds = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (!stopped) {
      current = new CliProcess(['send', file, ...sendArgs], { ...env, QUEUE_PREFIX: prefix });
      const [code] = (await once(current.child, 'exit')) as [number | null];
      if (!stopped && code !== 0) failures.push(`campaign send exited ${code}:\n${current.output}`);
      if (code === 0) rounds++;
      await removePrefix(redis, prefix);
      // A send that cannot run fails at once: stop rather than spin.
      if (failures.length >= 3) return;
    }
  })();
  return {
    rounds: () => rounds,
    failures: () => failures,
    async stop() {
      stopped = true;
      await current?.stop('SIGKILL');
      await loop;
      await removePrefix(redis, prefix);
      redis.disconnect();
    },
  };
}
