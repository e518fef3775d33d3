import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How many free ports RedisServer.start() tries before it gives up. */
const PORT_ATTEMPTS = 5;

/** A TCP port nobody listens on right now (the OS picks it; we close it again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no TCP port'));
        else resolve(address.port);
      });
    });
  });
}

/**
 * A `redis-server` of the test's own, so a test can crash and restart it without touching
 * the shared Redis: AOF on with `appendfsync always` (every acknowledged write is on disk,
 * as in production), no RDB snapshots, data in a temp dir. It is stopped only through the
 * PID it was started with, and restarted on the same port and dir so clients reconnect to
 * the same address and find the same data.
 */
export class RedisServer {
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  /** Everything the server printed, across restarts (for failure messages). */
  log = '';
  /** PIDs of every process this object started, in order. */
  readonly pids: number[] = [];

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(): Promise<RedisServer> {
    const dir = await mkdtemp(join(tmpdir(), 'cw-fault-redis-'));
    // The port is free when freePort() answers, but another process (a second test suite
    // beside this one, any outgoing connection) can take it before redis-server binds it:
    // then try another one.
    for (let attempt = 1; ; attempt++) {
      const server = new RedisServer(await freePort(), dir);
      try {
        await server.launch();
        return server;
      } catch (error) {
        if (server.pid !== undefined) await server.stop('SIGKILL'); // one that never got ready (by its own PID)
        if (attempt < PORT_ATTEMPTS && /Address already in use/i.test(server.log)) continue;
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Starts the server (again) on the same port and dir; resolves once it accepts connections. */
  async launch(): Promise<void> {
    if (this.running) throw new Error(`redis-server ${this.pid ?? '?'} is still running on ${this.port}`);
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
      '--daemonize',
      'no',
      '--maxmemory-policy',
      'noeviction',
      '--logfile',
      '',
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    // If the test process goes away without afterAll (a crash, a hard timeout), the server goes too.
    const killOnExit = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    process.once('exit', killOnExit);
    this.#exited = new Promise((resolve) =>
      child.on('exit', () => {
        process.off('exit', killOnExit);
        resolve();
      }),
    );
    if (child.pid !== undefined) this.pids.push(child.pid);
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const onData = (d: Buffer) => {
        const text = d.toString();
        seen += text;
        this.log += text;
        if (/Ready to accept connections/.test(seen)) {
          cleanup();
          resolve();
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        cleanup();
        reject(new Error(`redis-server on ${this.port} exited (${code ?? signal ?? '?'}) before it was ready:\n${seen}`));
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`redis-server on ${this.port} not ready within 10 s:\n${seen}`));
      }, 10_000);
      const cleanup = () => {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        child.off('close', onExit);
        child.off('error', onError);
        // Keep collecting the log for diagnostics.
        child.stdout?.on('data', (more: Buffer) => (this.log += more.toString()));
        child.stderr?.on('data', (more: Buffer) => (this.log += more.toString()));
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      // 'close', not 'exit': its output (why it stopped) has been read by then.
      child.on('close', onExit);
      child.on('error', onError);
    });
  }

  /** Signals the process this object started (by its PID, nothing else) and waits until it is gone. */
  async stop(signal: 'SIGKILL' | 'SIGTERM' = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    if (this.running) child.kill(signal);
    await this.#exited;
  }

  /** Stop (SIGKILL by default: a crash) and start again on the same port and dir. */
  async restart(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<void> {
    await this.stop(signal);
    await this.launch();
  }

  /** Kills the server if it still runs and removes its data dir. */
  async cleanup(): Promise<void> {
    await this.stop('SIGKILL');
    await rm(this.dir, { recursive: true, force: true });
  }
}
