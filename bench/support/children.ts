import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Child processes of the benchmark. Every child gets its own process group (detached), so
 * that stopping it also stops anything it started (e.g. node under /usr/bin/time), and a
 * Ctrl-C in the terminal reaches the benchmark alone, which then stops its children in order.
 * Children are only ever stopped by their own PID / process group: nothing is killed by name.
 */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** performance.now() when the process exited. */
  at: number;
}

export interface Child {
  name: string;
  pid: number;
  /** performance.now() right after spawn. */
  startedAt: number;
  exited: Promise<ChildExit>;
  /** Calls back with every line the child writes, stdout and stderr alike. */
  onLine(listener: (line: string, stream: 'stdout' | 'stderr') => void): void;
  /** The last lines it wrote, for error messages. */
  tail(): string;
  stdout(): string;
}

const live = new Map<number, ChildProcess>();
const TAIL_LINES = 40;

export function startChild(
  name: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): Child {
  const proc = spawn(command, args, { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const startedAt = performance.now();
  if (proc.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  const pid = proc.pid;
  live.set(pid, proc);
  const listeners: ((line: string, stream: 'stdout' | 'stderr') => void)[] = [];
  const lines: string[] = [];
  let out = '';
  const read = (stream: NodeJS.ReadableStream, which: 'stdout' | 'stderr') => {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      if (which === 'stdout') out += `${line}\n`;
      lines.push(`[${which}] ${line}`);
      if (lines.length > TAIL_LINES) lines.shift();
      for (const listener of listeners) listener(line, which);
    });
  };
  read(proc.stdout, 'stdout');
  read(proc.stderr, 'stderr');
  const exited = new Promise<ChildExit>((resolve) => {
    // The exit time is taken at 'exit'; the promise settles at 'close', once all output is read.
    let at = 0;
    proc.once('exit', () => {
      at = performance.now();
    });
    proc.once('close', (code, signal) => {
      live.delete(pid);
      resolve({ code, signal, at: at === 0 ? performance.now() : at });
    });
  });
  return {
    name,
    pid,
    startedAt,
    exited,
    onLine: (listener) => listeners.push(listener),
    tail: () => lines.join('\n'),
    stdout: () => out,
  };
}

/** Waits for a line matching `test`; rejects if the child exits first or the time runs out. */
export function waitForLine(child: Child, test: (line: string) => boolean, timeoutMs: number): Promise<{ line: string; at: number }> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(
      () => finish(new Error(`${child.name}: no expected output within ${timeoutMs} ms\n${child.tail()}`)),
      timeoutMs,
    );
    const finish = (result: Error | { line: string; at: number }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    child.onLine((line) => {
      if (test(line)) finish({ line, at: performance.now() });
    });
    void child.exited.then((exit) =>
      finish(
        new Error(
          `${child.name} exited (code ${String(exit.code)}, signal ${String(exit.signal)}) before the expected output\n${child.tail()}`,
        ),
      ),
    );
  });
}

/** Runs a child to completion; rejects on a non-zero exit. */
export async function runToExit(child: Child, timeoutMs: number): Promise<ChildExit> {
  const timer = setTimeout(() => void stopChild(child), timeoutMs);
  try {
    const exit = await child.exited;
    if (exit.code !== 0) {
      throw new Error(`${child.name} failed (code ${String(exit.code)}, signal ${String(exit.signal)})\n${child.tail()}`);
    }
    return exit;
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM to the child's process group, SIGKILL if it has not exited after `graceMs`. */
export async function stopChild(child: Child, graceMs = 10_000): Promise<ChildExit> {
  signalGroup(child.pid, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), graceMs);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (!live.has(pid)) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone between the check and the signal.
  }
}

/**
 * Stops every child still running (on error, Ctrl-C, or at the end), newest first: a worker
 * stops before the sandbox it sends to, so its last requests are answered, not refused.
 */
export async function stopAllChildren(): Promise<void> {
  for (const pid of [...live.keys()].reverse()) {
    const proc = live.get(pid);
    if (proc === undefined) continue;
    const closed = new Promise<void>((resolve) => proc.once('close', () => resolve()));
    signalGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), 5000);
    await closed;
    clearTimeout(timer);
  }
}

/** Last resort if the benchmark process itself is exiting: no waiting possible any more. */
export function killAllChildrenNow(): void {
  for (const pid of [...live.keys()]) signalGroup(pid, 'SIGKILL');
}
