import type { Redis } from 'ioredis';

/** The pacer's admissions recorded under `auditKey`, as ms on Redis's clock, in order. */
export async function admissions(redis: Redis, auditKey: string): Promise<number[]> {
  const flat = await redis.zrange(auditKey, 0, -1, 'WITHSCORES');
  const stamps: number[] = [];
  for (let i = 1; i < flat.length; i += 2) stamps.push(Number(flat[i]) / 1000);
  return stamps.sort((a, b) => a - b);
}

/** The most stamps in any window of `windowMs` (a sliding second by default). */
export function busiestWindow(sorted: readonly number[], windowMs = 1000): number {
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}
