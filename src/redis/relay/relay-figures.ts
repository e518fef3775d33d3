import { execPipeline } from '../redis-connection.js';
import type { RedisClient } from '../key-scope.js';
import { relayKeys } from './relay-keys.js';
import { parseCursor } from './redis-relay-store.js';

/** One relay target's figures, as /metrics shows them. */
export interface RelayFigures {
  target: string;
  forwarded: number;
  /** Failed attempts that were tried again. */
  retried: number;
  dead: number;
  /** Bodies the intake accepted that the target has not had yet (neither forwarded nor dead). */
  waiting: number;
  /** Age in seconds of the oldest of them; 0 when none waits. */
  lagSeconds: number;
}

/** Reads each target's figures from Redis (every replica's totals): its counts, and how far its cursor is behind. */
export async function readRelayFigures(
  redis: RedisClient,
  prefix: string,
  targets: readonly string[],
  now: number,
): Promise<RelayFigures[]> {
  const keys = relayKeys(prefix);
  const pipeline = redis.pipeline().hgetall(keys.stats).hgetall(keys.cursors);
  const [stats, cursors] = await execPipeline<[Record<string, string>, Record<string, string>]>(pipeline);
  const appended = Number(stats.appended ?? 0);
  const figures: RelayFigures[] = [];
  for (const target of targets) {
    const count = (kind: string): number => Number(stats[`${kind}:${target}`] ?? 0);
    const stored = cursors[target];
    const cursor = stored === undefined ? undefined : parseCursor(stored);
    let lagSeconds = 0;
    if (cursor !== undefined) {
      // Only the oldest waiting entry's `at`: its body is read too (XRANGE has no field filter), one entry per target.
      const [oldest] = (await redis.xrange(keys.relay, `(${cursor.id}`, '+', 'COUNT', 1)) as [string, string[]][];
      const at = oldest === undefined ? undefined : fieldOf(oldest[1], 'at');
      if (at !== undefined) lagSeconds = Math.max(0, (now - Number(at)) / 1000);
    }
    figures.push({
      target,
      forwarded: count('forwarded'),
      retried: count('retried'),
      dead: count('dead'),
      waiting: cursor === undefined ? 0 : Math.max(0, appended - cursor.ordinal),
      lagSeconds,
    });
  }
  return figures;
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
