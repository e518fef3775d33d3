import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { findOnPath } from '../../files/find-on-path.js';
import { assertRedisAnswers } from '../redis-connection.js';
import type { PrivateRedis, RedisStarter } from './private-redis.js';

const READY_WITHIN_MS = 10_000;
const STOP_WITHIN_MS = 5_000;
/** Another process may take the free port between our look and Redis's bind: try again on a new one. */
const PORT_ATTEMPTS = 3;

/** A `redis-server` found on `pathList` (a PATH value), started on a free loopback port. */
export function redisServerOnPath(pathList: string): RedisStarter {
  return {
    name: 'redis-server on the PATH',
    async start() {
      const binary = findOnPath('redis-server', pathList);
      if (binary === undefined) throw new Error('not found');
      return startRedisServer(binary);
    },
  };
}

/**
 * Starts `binary` with nothing persisted (no RDB, no AOF) on a free port of 127.0.0.1, waits
 * until it answers PING, and returns it with its PID. `stop` ends that PID (SIGTERM, then
 * SIGKILL) and waits for it to exit; if this process exits first, the PID is killed then.
 */
export async function startRedisServer(binary: string): Promise<PrivateRedis & { pid: number }> {
  let lastError: unknown;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    try {
      return await startOnPort(binary, await freePort());
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function startOnPort(binary: string, port: number): Promise<PrivateRedis & { pid: number }> {
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = tailOf(child);
  const pid = await spawned(child);
  const killAtExit = () => killQuietly(pid, 'SIGKILL');
  process.once('exit', killAtExit);
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    process.off('exit', killAtExit);
    await stopProcess(child, pid);
  };
  try {
    await answersWithin(url, child, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid, description: `redis-server from the PATH (${binary}, pid ${pid}) on 127.0.0.1:${port}`, stop };
}

/** The child's PID once it runs; rejects (once's 'error' rule) when it cannot start: missing, not executable. */
async function spawned(child: ChildProcess): Promise<number> {
  await once(child, 'spawn');
  if (child.pid === undefined) throw new Error('started without a PID');
  return child.pid;
}

/** Polls PING until it answers; fails at once, with what Redis printed, if the process exits. */
async function answersWithin(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited before answering: ${output()}`);
    try {
      await assertRedisAnswers(url, 500);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`did not answer at ${url} within ${READY_WITHIN_MS / 1000} s: ${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function stopProcess(child: ChildProcess, pid: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  killQuietly(pid, 'SIGTERM');
  const timer = setTimeout(() => killQuietly(pid, 'SIGKILL'), STOP_WITHIN_MS);
  await exited;
  clearTimeout(timer);
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** The last 2,000 characters the process printed, on one line: Redis says there why it stopped. */
function tailOf(child: ChildProcess): () => string {
  let text = '';
  const keep = (data: Buffer) => (text = (text + data.toString()).slice(-2000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text.replace(/\s+/g, ' ').trim().slice(-400);
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}
