import { performance } from 'node:perf_hooks';
import { runCliWithin } from './cli-process.js';

/** One `campaign …` run of a batch: what ran, how long it took, how it ended. */
export interface CommandRun {
  args: string[];
  ms: number;
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** What is wrong with its output, as the batch's check said; undefined when it is right. */
  wrong: string | undefined;
}

export interface BatchOptions {
  /** How many runs in all. */
  runs: number;
  /** How many at a time. */
  concurrency: number;
  /** The environment every run gets. */
  env: Record<string, string>;
  /** A run taking longer is killed (by its PID) and counted as timed out: a hang must not take the test's whole budget. */
  killAfterMs: number;
  /** Told of each run as it ends (progress on a long batch). */
  onRun?: (run: CommandRun, n: number) => void;
  /** The n-th run's words and how to check what it did (undefined = right, else what is wrong). */
  command(n: number): { args: string[]; check: (run: Omit<CommandRun, 'wrong'>) => Promise<string | undefined> | string | undefined };
}

/** Runs `runs` commands, `concurrency` at a time, as child processes; returns every run, in the order started. */
export async function runBatch(options: BatchOptions): Promise<CommandRun[]> {
  const runs: CommandRun[] = [];
  let next = 0;
  const runner = async (): Promise<void> => {
    while (next < options.runs) {
      const n = next++;
      const { args, check } = options.command(n);
      const started = performance.now();
      const result = await runCliWithin(args, options.env, options.killAfterMs);
      const run = { args, ms: performance.now() - started, ...result };
      runs[n] = { ...run, wrong: await check(run) };
      options.onRun?.(runs[n], n);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, runner));
  return runs;
}

/** A run in one line for a failure message: the command, its duration, its exit and its stderr. */
export function describeRun(run: CommandRun): string {
  const end = run.timedOut ? 'killed, still running' : `exit ${run.code}`;
  const why = run.wrong === undefined ? '' : `; ${run.wrong}`;
  const stderr = run.stderr.trim() === '' ? '' : `; stderr: ${run.stderr.trim().slice(0, 600)}`;
  return `campaign ${run.args.join(' ')}: ${(run.ms / 1000).toFixed(2)} s, ${end}${why}${stderr}`;
}
