import { Redis } from 'ioredis';
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
