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
  /** True for a run that fails the batch: no run starts after it (those running end), so a failing batch ends early. */
  fails: (run: CommandRun) => boolean;
  /** No run starts after this long; the batch then returns fewer runs than asked (a machine too busy for the test's time). */
  budgetMs: number;
  /** The n-th run's words and how to check what it did (undefined = right, else what is wrong). */
  command(n: number): { args: string[]; check: (run: Omit<CommandRun, 'wrong'>) => Promise<string | undefined> | string | undefined };
}

/**
 * Runs `runs` commands, `concurrency` at a time, as child processes; returns the runs made, in
 * the order started: all of them, or fewer once one failed or the budget was spent.
 */
export async function runBatch(options: BatchOptions): Promise<CommandRun[]> {
  const runs: CommandRun[] = [];
  const budgetEnds = performance.now() + options.budgetMs;
  let next = 0;
  let failed = false;
  const runner = async (): Promise<void> => {
    while (next < options.runs && !failed && performance.now() < budgetEnds) {
      const n = next++;
      const { args, check } = options.command(n);
      const started = performance.now();
      const result = await runCliWithin(args, options.env, options.killAfterMs);
      const run = { args, ms: performance.now() - started, ...result };
      const ended = { ...run, wrong: await check(run) };
      runs[n] = ended;
      failed ||= options.fails(ended);
      options.onRun?.(ended, n);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, runner));
  return runs.filter((run) => run !== undefined);
}

/** A run in one line for a failure message: the command, its duration, its exit and its stderr. */
export function describeRun(run: CommandRun): string {
  const end = run.timedOut ? 'killed, still running' : `exit ${run.code}`;
  const why = run.wrong === undefined ? '' : `; ${run.wrong}`;
  const stderr = run.stderr.trim() === '' ? '' : `; stderr: ${run.stderr.trim().slice(0, 600)}`;
  return `campaign ${run.args.join(' ')}: ${(run.ms / 1000).toFixed(2)} s, ${end}${why}${stderr}`;
}
