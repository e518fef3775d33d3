import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { createCluster } from '../../src/redis/redis-connection.js';
import { waitFor } from './waiting.js';

const run = promisify(execFile);

/** A node's cluster-node-timeout: short, so a killed master's replica takes over within a few seconds. */
const NODE_TIMEOUT_MS = 1000;

interface Node {
  port: number;
  dir: string;
  child: ChildProcess;
  exited: Promise<void>;
  log: string;
}

/**
 * A Redis Cluster of the test's own: `redis-server --cluster-enabled yes` on free ports (each
 * with its bus port, +10000, free too), joined by `redis-cli --cluster create`, nothing on
 * disk but its node files in a temp dir. Every server is stopped through the PID it was
 * started with, and killed with the test process if that goes first.
 */
export class RedisClusterUnderTest {
  readonly #nodes: Node[] = [];
  #root = '';

  private constructor() {}

  /** `masters` masters and `replicas` replicas of each; resolves once every node says cluster_state:ok. */
  static async start(options: { masters?: number; replicas?: number } = {}): Promise<RedisClusterUnderTest> {
    const masters = options.masters ?? 3;
    const replicas = options.replicas ?? 0;
    const cluster = new RedisClusterUnderTest();
    cluster.#root = await mkdtemp(join(tmpdir(), 'cw-cluster-'));
    try {
      for (let i = 0; i < masters * (1 + replicas); i++) await cluster.#launch();
      const addresses = cluster.#nodes.map((node) => `127.0.0.1:${node.port}`);
      await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'], {
        timeout: 30_000,
      });
      await cluster.waitUntilOk();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /**
   * Seed nodes as REDIS_CLUSTER_NODES takes them: the nodes running now. A killed node's port is
   * free for any process to take (another test's cluster node among them), and a client seeded
   * with it may ask that process for the slots.
   */
  get nodesSetting(): string {
    return this.seeds.map((node) => `${node.host}:${node.port}`).join(',');
  }

  get seeds(): { host: string; port: number }[] {
    return this.#live().map((node) => ({ host: '127.0.0.1', port: node.port }));
  }

  /** The environment a CLI process needs to use this cluster (its running nodes: see nodesSetting). */
  env(): Record<string, string> {
    return { REDIS_URL: `redis://127.0.0.1:${this.#live()[0]?.port ?? 0}`, REDIS_CLUSTER_NODES: this.nodesSetting };
  }

  /** A Cluster client as the product makes it (createCluster); the caller quits it. */
  client(): Cluster {
    return createCluster(`redis://127.0.0.1:${this.#live()[0]?.port ?? 0}`, this.seeds, { maxRetriesPerRequest: null });
  }

  pidOf(port: number): number | undefined {
    return this.#nodes.find((node) => node.port === port)?.child.pid;
  }

  /** Ports of the nodes that are masters now, as a running node sees them. */
  async masterPorts(): Promise<number[]> {
    const text = await this.#ask((redis) => redis.cluster('NODES') as Promise<string>);
    return text
      .split('\n')
      .map((line) => line.split(' '))
      .filter((parts) => {
        const flags = (parts[2] ?? '').split(',');
        return flags.includes('master') && !flags.includes('fail') && !flags.includes('fail?');
      })
      .map((parts) => Number(/:(\d+)@/.exec(parts[1] ?? '')?.[1]))
      .filter((port) => Number.isInteger(port) && this.#running(port));
  }

  /** The port of the master serving `key`'s slot now. */
  async masterOf(key: string): Promise<number> {
    const slot = Number(await this.#ask((redis) => redis.cluster('KEYSLOT', key)));
    const slots = await this.#ask((redis) => redis.cluster('SLOTS'));
    const range = slots.find(([from, to]) => slot >= from && slot <= to);
    const master = range?.[2];
    if (master === undefined) throw new Error(`no node serves slot ${slot}`);
    return master[1];
  }

  /** SIGKILL of one node, by the PID it was started with; resolves once it is gone. */
  async kill(port: number): Promise<void> {
    const node = this.#nodes.find((n) => n.port === port);
    if (node === undefined) throw new Error(`no node of this cluster on ${port}`);
    node.child.kill('SIGKILL');
    await node.exited;
  }

  /** Until every running node says cluster_state:ok (after a failover, too). */
  async waitUntilOk(timeoutMs = 30_000): Promise<void> {
    await waitFor(
      async () => {
        const states = await Promise.all(
          this.#nodes
            .filter((node) => this.#running(node.port))
            .map(async (node) => {
              const redis = new Redis(node.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
              try {
                await redis.connect();
                return /cluster_state:ok/.test(String(await redis.cluster('INFO')));
              } catch {
                return false;
              } finally {
                redis.disconnect();
              }
            }),
        );
        return states.every(Boolean);
      },
      {
        what: 'every running node at cluster_state:ok',
        timeoutMs,
        intervalMs: 100,
        explain: () => this.#nodes.map((n) => n.log.slice(-500)).join('\n'),
      },
    );
  }

  async stop(): Promise<void> {
    for (const node of this.#nodes) {
      if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
      await node.exited;
    }
    this.#nodes.length = 0;
    if (this.#root !== '') await rm(this.#root, { recursive: true, force: true });
  }

  #live(): Node[] {
    return this.#nodes.filter((node) => this.#running(node.port));
  }

  #running(port: number): boolean {
    const node = this.#nodes.find((n) => n.port === port);
    return node !== undefined && node.child.exitCode === null && node.child.signalCode === null;
  }

  async #ask<T>(question: (redis: Redis) => Promise<T>): Promise<T> {
    for (const node of this.#nodes.filter((n) => this.#running(n.port))) {
      const redis = new Redis(node.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      try {
        await redis.connect();
        return await question(redis);
      } catch {
        // the next node
      } finally {
        redis.disconnect();
      }
    }
    throw new Error('no node of the cluster answers');
  }

  async #launch(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const port = await freeClusterPort();
      const dir = join(this.#root, String(port));
      await mkdir(dir, { recursive: true });
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(NODE_TIMEOUT_MS),
        '--appendonly',
        'no',
        '--save',
        '',
        '--daemonize',
        'no',
        '--logfile',
        '',
      ];
      const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const killOnExit = () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      };
      process.once('exit', killOnExit);
      const node: Node = {
        port,
        dir,
        child,
        log: '',
        exited: new Promise((resolve) =>
          child.on('exit', () => {
            process.off('exit', killOnExit);
            resolve();
          }),
        ),
      };
      const ready = await new Promise<boolean>((resolve) => {
        const onData = (data: Buffer) => {
          node.log += data.toString();
          if (/Ready to accept connections/.test(node.log)) resolve(true);
        };
        child.stdout?.on('data', onData);
        child.stderr?.on('data', onData);
        child.once('close', () => resolve(false));
        setTimeout(() => resolve(false), 10_000).unref();
      });
      if (ready) {
        this.#nodes.push(node);
        return;
      }
      child.kill('SIGKILL');
      await node.exited;
      if (attempt >= 5 || !/Address already in use/i.test(node.log)) throw new Error(`redis-server on ${port} did not start:\n${node.log}`);
    }
  }
}

/** A port that is free, and whose cluster bus port (+10000) is free too. */
async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if ((await isFree(port)) && (await isFree(port + 10_000))) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
