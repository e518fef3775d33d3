import type { CliProcess } from './cli-process.js';

/** Waiting with a deadline, on events rather than sleeps, for the fault-injection suite. */

/** Resolves `promise`, or rejects after `ms` with what `explain` says about the state then. */
export async function within<T>(ms: number, promise: Promise<T>, explain: () => string | Promise<string>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      Promise.resolve()
        .then(explain)
        .then(
          (text) => reject(new Error(`not within ${ms} ms: ${text}`)),
          (error: unknown) => reject(new Error(`not within ${ms} ms (and explaining failed: ${String(error)})`)),
        );
    }, ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `pattern` matches what `process` printed after offset `from` (default: from now on). */
export function outputAfter(process: CliProcess, pattern: RegExp, from = process.output.length): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = process.output.slice(from).match(pattern);
      if (match !== null) {
        cleanup();
        resolve(match);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`process exited (${code}) before printing ${pattern}`));
    };
    const cleanup = () => {
      process.child.stdout?.off('data', check);
      process.child.stderr?.off('data', check);
      process.child.off('exit', onExit);
    };
    // Registered after CliProcess's own collectors, so `output` already holds the chunk.
    process.child.stdout?.on('data', check);
    process.child.stderr?.on('data', check);
    process.child.on('exit', onExit);
    check();
  });
}
