import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RelayTarget } from '../config/relay-targets.js';
import type { Secret } from '../config/secret.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/key-scope.js';
import { readyWithin } from '../redis/redis-connection.js';
import { RedisRelayStore } from '../redis/relay/redis-relay-store.js';
import { TargetRelay, type RelayTiming } from './target-relay.js';

/** A target seen for the first time starts this long before its first forwarder did: bodies taken while `serve` came up are kept. */
export const RELAY_START_MARGIN_MS = 60_000;
/** How often the relay stream is trimmed to what some target still needs. */
const TRIM_EVERY_MS = 5000;
/** How long stop() waits for a POST in flight (it is sent again by whoever forwards next: at least once). */
const STOP_WAIT_MS = 1500;

export const DEFAULT_RELAY_TIMING: RelayTiming = { pollMs: 250, leaseMs: 30_000, batch: 100, inFlight: 8 };

export interface RelayForwarderOptions {
  /** Its own connection (fail-fast, as `serve` makes them). */
  redis: RedisClient;
  prefix: string;
  /** RELAY_WEBHOOKS. */
  targets: readonly RelayTarget[];
  /** The first WHATSAPP_APP_SECRET: signs the bodies of a target without a secret of its own. */
  metaSecret: Secret;
  /** HOOK_RETRY_HOURS in ms. */
  retryMs: number;
  logger: Logger;
  /** Tests: shorter polls and leases, and a clock. */
  timing?: Partial<RelayTiming>;
  now?: () => number;
}

/**
 * `serve`'s relay: forwards every Meta webhook the intake accepted (src/redis/lua/webhooks/append.lua put it in the relay
 * stream) to each RELAY_WEBHOOKS target, re-signed for it (src/relay/relay-request.ts). One loop per target, so a target that
 * fails holds back only its own bodies; any number of replicas may run it, a lease per target letting one forward at a time.
 * Nothing waits on it: the answer to Meta was given when the body was in Redis.
 */
export class RelayForwarder {
  readonly #o: RelayForwarderOptions;
  readonly #store: RedisRelayStore;
  readonly #abort = new AbortController();
  #running: Promise<unknown> | undefined;

  constructor(options: RelayForwarderOptions) {
    this.#o = options;
    this.#store = new RedisRelayStore(options.redis, options.prefix);
  }

  start(): void {
    if (this.#running !== undefined || this.#o.targets.length === 0) return;
    const { redis, targets, logger } = this.#o;
    const now = this.#o.now ?? Date.now;
    const timing = { ...DEFAULT_RELAY_TIMING, ...this.#o.timing };
    const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const connected = async (): Promise<boolean> => {
      await readyWithin(redis, timing.pollMs);
      return redis.status === 'ready';
    };
    const startFrom = now() - RELAY_START_MARGIN_MS;
    const loops = targets.map((target) =>
      new TargetRelay({
        store: this.#store,
        target,
        metaSecret: this.#o.metaSecret,
        owner,
        retryMs: this.#o.retryMs,
        startFrom,
        logger,
        timing,
        signal: this.#abort.signal,
        now,
        connected,
      }).run(),
    );
    this.#running = Promise.all([...loops, this.#trimLoop(connected)]);
  }

  /** Stops the loops; a POST in flight is not waited for beyond STOP_WAIT_MS. */
  async stop(): Promise<void> {
    this.#abort.abort();
    if (this.#running === undefined) return;
    await Promise.race([this.#running, sleep(STOP_WAIT_MS, undefined, { ref: false })]);
  }

  /** Drops what every target is done with, so the stream holds only what some target still needs. */
  async #trimLoop(connected: () => Promise<boolean>): Promise<void> {
    const names = this.#o.targets.map((target) => target.name);
    const { signal } = this.#abort;
    while (!signal.aborted) {
      await sleep(TRIM_EVERY_MS, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      // Redis away: the next round trims; the target loops say it.
      if (await connected()) await this.#store.trim(names).catch(() => undefined);
    }
  }
}
