import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisServer } from './fault-redis-server.js';
import { waitFor } from './waiting.js';

/** A redis-server of our own and a replica of it, linked; the caller cleans both up (replica first). */
export async function startMasterWithReplica(): Promise<{ master: RedisServer; replica: RedisServer }> {
  const master = await RedisServer.start();
  const replica = await RedisServer.start();
  const replicaClient = new Redis(replica.url);
  try {
    await replicaClient.replicaof('127.0.0.1', String(master.port));
    await waitFor(async () => /master_link_status:up/.test(await replicaClient.info('replication')), { what: 'the replica linked' });
  } finally {
    replicaClient.disconnect();
  }
  return { master, replica };
}

/**
 * Runs `write` (a ledger write that waits for its replica) while `replica` is stopped. Once its
 * WAIT blocks on the master, drops that connection, as a failover would (the client sends the
 * WAIT again on a new one), and lets the replica run again. `lose`: first puts the keys under
 * `prefix` back as they were before `write`, standing in for a promoted replica that never got
 * the write. `watcher`: a connection of the test's own to the master.
 */
export async function cutOffWait<T>(replica: RedisServer, watcher: Redis, write: () => Promise<T>, lose?: { prefix: string }): Promise<T> {
  const pid = replica.pid;
  if (pid === undefined) throw new Error('the replica has no PID');
  const before = lose === undefined ? undefined : await snapshot(watcher, lose.prefix);
  process.kill(pid, 'SIGSTOP');
  try {
    const writing = write();
    writing.catch(() => undefined);
    const waiting = await waitFor(async () => /^id=(\d+) .*cmd=wait\b/m.exec(String(await watcher.client('LIST')))?.[1], {
      what: "the write's WAIT blocked on the master",
    });
    if (lose !== undefined && before !== undefined) await restore(watcher, lose.prefix, before);
    await watcher.client('KILL', 'ID', waiting);
    process.kill(pid, 'SIGCONT');
    return await writing;
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/** Every key under `prefix`, dumped. */
async function snapshot(redis: Redis, prefix: string): Promise<Map<string, Buffer>> {
  const dumps = new Map<string, Buffer>();
  for (const key of await redis.keys(`${prefix}*`)) {
    const dump = await redis.dumpBuffer(key);
    if (dump !== null) dumps.set(key, dump);
  }
  return dumps;
}

/** The keys under `prefix` as `dumps` had them, and no others. */
async function restore(redis: Redis, prefix: string, dumps: ReadonlyMap<string, Buffer>): Promise<void> {
  const now = await redis.keys(`${prefix}*`);
  if (now.length > 0) await redis.del(...now);
  for (const [key, dump] of dumps) await redis.restore(key, 0, dump);
}

/** What suiteMasterWithReplica gives its tests, set before they run. */
export interface MasterWithReplica {
  replica: RedisServer;
  /** As the worker's and the CLI's connections are: commands wait through a reconnect, and those in flight are sent again. */
  redis: Redis;
  /** The test's own connection to the master. */
  watcher: Redis;
}

/** A master and a replica of our own for the tests of the describe block it is called in, stopped after them. */
export function suiteMasterWithReplica(): MasterWithReplica {
  const rig = {} as MasterWithReplica;
  let master: RedisServer | undefined;
  beforeAll(async () => {
    const servers = await startMasterWithReplica();
    master = servers.master;
    rig.replica = servers.replica;
    rig.redis = new Redis(master.url, { maxRetriesPerRequest: null });
    rig.watcher = new Redis(master.url);
  }, 30_000);
  afterAll(async () => {
    rig.redis?.disconnect();
    rig.watcher?.disconnect();
    await rig.replica?.cleanup();
    await master?.cleanup();
  });
  return rig;
}
