import type { RedisClient } from './key-scope.js';

/** REDIS_WAIT_REPLICAS: how many replicas must have a write before it is acted on; 0 = never wait. */
export interface ReplicaWaitOptions {
  replicas: number;
  /** A warning when replicas did not acknowledge in time (the caller goes ahead). */
  onBehind?: (acknowledged: number, wanted: number) => void;
}

/** How long a write waits for its replicas before the caller goes ahead anyway. */
const REPLICA_WAIT_MS = 1000;
/** How long a node's count of connected replicas is trusted (a failover changes it). */
const REPLICA_COUNT_MS = 3000;

/**
 * Waits until what a connection wrote is on the replicas (WAIT), so a failover cannot take back
 * a write that something outside Redis has been told about: a claim whose message then leaves,
 * a webhook Meta was answered 200 for.
 */
export class ReplicaWait {
  readonly #redis: RedisClient;
  readonly #replicas: number;
  readonly #onBehind: ((acknowledged: number, wanted: number) => void) | undefined;
  readonly #counts = new Map<string, { count: number; at: number }>();

  constructor(redis: RedisClient, options: ReplicaWaitOptions) {
    this.#redis = redis;
    this.#replicas = options.replicas;
    this.#onBehind = options.onBehind;
  }

  /** Whether writes wait for replicas at all (REDIS_WAIT_REPLICAS above 0). */
  get waits(): boolean {
    return this.#replicas > 0;
  }

  /**
   * Waits until the writes made so far on the connection to `key`'s node are on the replicas
   * asked for. WAIT names no key, so on a cluster it rides in a pipeline behind a read of `key`,
   * which takes it to that node. It waits for no more replicas than the node has connected
   * (read every few seconds): a replica promoted in a failover has none until one is added, and
   * waiting for one that does not exist would stall every write for the whole timeout.
   *
   * `writtenOn`: the CLIENT ID of the connection the writes went out on. WAIT only speaks for
   * its own connection's writes: one resent after a reconnect (a failover moved the slot to the
   * promoted replica) would vouch for writes that connection never made. Answers false then,
   * and the caller must not act on those writes as durable; true otherwise. Without `writtenOn`
   * the caller's connection must never send a cut-off command again (createWebhookRedis's): the
   * wait then fails with the connection instead.
   */
  async replicated(key: string, writtenOn?: number): Promise<boolean> {
    if (this.#replicas === 0) return true;
    const connected = await this.#connectedReplicas(key);
    const wanted = Math.min(this.#replicas, connected);
    if (wanted < this.#replicas) this.#onBehind?.(connected, this.#replicas);
    if (wanted === 0) return writtenOn === undefined || (await this.#sameConnection(key, writtenOn));
    const replies = await this.#redis.pipeline().exists(key).wait(wanted, REPLICA_WAIT_MS).client('ID').exec();
    const acknowledged = Number(replies?.[1]?.[1] ?? 0);
    const elsewhere = writtenOn !== undefined && Number(replies?.[2]?.[1]) !== writtenOn;
    // Another connection, or fewer replicas than counted: the node may have changed (a failover), so count them again.
    if (elsewhere || acknowledged < wanted) this.#counts.delete(tagOf(key));
    if (elsewhere) return false;
    if (acknowledged < wanted) this.#onBehind?.(acknowledged, this.#replicas);
    return true;
  }

  /** Whether `key`'s node is reached on the connection `writtenOn` still (else the count of its replicas is read again). */
  async #sameConnection(key: string, writtenOn: number): Promise<boolean> {
    const replies = await this.#redis.pipeline().exists(key).client('ID').exec();
    if (Number(replies?.[1]?.[1]) === writtenOn) return true;
    this.#counts.delete(tagOf(key));
    return false;
  }

  /** Replicas connected to the node holding `key` (its slot's tag keyed, kept REPLICA_COUNT_MS). */
  async #connectedReplicas(key: string): Promise<number> {
    const tag = tagOf(key);
    const known = this.#counts.get(tag);
    if (known !== undefined && known.at > Date.now() - REPLICA_COUNT_MS) return known.count;
    const replies = await this.#redis.pipeline().exists(key).info('replication').exec();
    const info = replies?.[1]?.[1];
    const count = Number(/connected_slaves:(\d+)/.exec(typeof info === 'string' ? info : '')?.[1] ?? 0);
    this.#counts.set(tag, { count, at: Date.now() });
    return count;
  }
}

/** The hash tag of a key (its slot's), '' when it has none. */
function tagOf(key: string): string {
  return /\{([^}]*)\}/.exec(key)?.[1] ?? '';
}
