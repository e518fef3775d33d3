import type { Redis } from 'ioredis';
import type { RedisSendPacer } from '../../src/redis/pacer/redis-send-pacer.js';

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

export interface SimulatedNumber {
  /** Each worker process of the number: its own pacer client, and how many sends it runs at once. */
  workers: { pacer: RedisSendPacer; concurrency: number }[];
  /** The API's answer time (µs) for each campaign's rows; the number's one queue holds the campaigns' rows in turn. */
  answersMicros: number[];
  start: number;
  end: number;
  setNow: (t: number) => void;
}

interface Sender {
  worker: number;
  pacer: RedisSendPacer;
  at: number;
  step: 'reserve' | 'admit';
  member: string;
  row: number;
}

/**
 * Every worker's sends, each in turn: reserve a slot, wait for it, ask the ceiling once (it
 * answers when the send may go), wait for that, then hold its place for the API's answer before taking the next row from the
 * number's queue (shared by every worker). Rows always wait. The waits are what the worker
 * sleeps (sleepMicros: a wait under 0.5 ms is not slept, a longer one to the next whole ms).
 * Events run in time order on the simulated clock, which every pacer reads. Answers how many sends each worker and each campaign made.
 */
export async function simulateSenders(number: SimulatedNumber): Promise<{ byWorker: number[]; byCampaign: number[] }> {
  const { answersMicros, start, end, setNow } = number;
  const slept = (micros: number) => (micros >= 500 ? Math.ceil(micros / 1000) * 1000 : 0);
  let nextRow = 0;
  const senders: Sender[] = number.workers.flatMap(({ pacer, concurrency }, worker) =>
    Array.from({ length: concurrency }, () => {
      const row = nextRow++;
      return { worker, pacer, at: start, step: 'reserve' as const, member: `row-${row}`, row };
    }),
  );
  const byWorker = number.workers.map(() => 0);
  const byCampaign = answersMicros.map(() => 0);
  for (;;) {
    let next = senders[0]!;
    for (const sender of senders) if (sender.at < next.at) next = sender;
    if (next.at >= end) return { byWorker, byCampaign };
    setNow(next.at);
    if (next.step === 'reserve') {
      next.at += slept(await next.pacer.grantWait());
      next.step = 'admit';
      continue;
    }
    // Stamped at its moment; held back, it sleeps until then and goes without asking again.
    next.at += slept(await next.pacer.admitWait(next.member));
    const campaign = next.row % answersMicros.length;
    byWorker[next.worker]!++;
    byCampaign[campaign]!++;
    next.at += answersMicros[campaign] ?? 0;
    next.row = nextRow++;
    next.member = `row-${next.row}`;
    next.step = 'reserve';
  }
}
