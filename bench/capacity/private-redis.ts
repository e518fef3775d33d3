import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startChild, stopChild, waitForLine, type Child } from '../support/children.js';

/**
 * A redis-server of the capacity section's own, on a free port: the shared Redis of this
 * machine also serves other people's tests, so its command counts, CPU and memory would not
 * be ours alone. No persistence (production runs AOF: its writes are not in these figures).
 * Stopped through its PID (the children module), never by name.
 */
export interface PrivateRedis {
  url: string;
  pid: number;
  client: Redis;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'cw-capacity-redis-'));
  const port = await freePort();
  const child: Child = startChild(
    'redis-server (capacity)',
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--logfile', ''],
    process.env,
  );
  try {
    await waitForLine(child, (line) => /Ready to accept connections/.test(line), 15_000);
  } catch (error) {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { maxRetriesPerRequest: 20 });
  return {
    url,
    pid: child.pid,
    client,
    stop: async () => {
      await client.quit().catch(() => client.disconnect());
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  for (;;) {
    const port = 30_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.unref();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
