import type { CliProcess } from './cli-process.js';

/** Waiting on a CLI process's output, for the fault-injection suite (deadlines: waiting.ts's `within`). */

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
