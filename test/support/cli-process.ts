import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../bin/campaign.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `campaign ARGS` to completion, exactly as a user would. A variable given as undefined
 * is removed from the environment; `cwd`: where it runs (default: the test's own directory).
 */
export function runCli(args: string[], env: Record<string, string | undefined>, options: { cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...options,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs `campaign ARGS` like runCli, but gives it `timeoutMs`: a command that hangs (reading a
 * named pipe, a sandbox that started after all) is killed by its own PID with SIGKILL and
 * resolves with `timedOut: true` and `code: null`, so a test fails with what it printed.
 */
export function runCliWithin(args: string[], env: Record<string, string>, timeoutMs: number): Promise<CliResult & { timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** A long-running `campaign` process (worker, sandbox) that the test stops by its own PID. */
export class CliProcess {
  readonly child: ChildProcess;
  output = '';
  readonly #exited: Promise<number | null>;

  /** `cwd`: where it runs (default: the test's own working directory). */
  constructor(args: string[], env: Record<string, string>, options: { cwd?: string } = {}) {
    this.child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...options,
    });
    const collect = (d: Buffer) => (this.output += d.toString());
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.#exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = this.output.match(pattern);
        if (match !== null) {
          cleanup();
          resolve(match);
        }
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`process exited (${code}) before printing ${pattern}:\n${this.output}`));
      };
      const cleanup = () => {
        this.child.stdout?.off('data', check);
        this.child.stderr?.off('data', check);
        this.child.off('exit', onExit);
      };
      this.child.stdout?.on('data', check);
      this.child.stderr?.on('data', check);
      this.child.on('exit', onExit);
      check();
    });
  }

  /** SIGTERM to this process only; resolves with its exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.#exited;
  }
}
