import { setTimeout as sleep } from 'node:timers/promises';
import type { RelayTarget } from '../config/relay-targets.js';
import type { Secret } from '../config/secret.js';
import type { Logger } from '../logging/logger.js';
import { postDelivery, type DeliveryAnswer } from '../outbound/signed-post.js';
import type { RedisRelayStore, RelayEntry } from '../redis/relay/redis-relay-store.js';
import { afterFailure, nextStep, type Failing } from './relay-attempts.js';
import { relayHeaders } from './relay-request.js';

/** How the forwarding of one target is paced (defaults in relay-forwarder.ts; tests shorten them). */
export interface RelayTiming {
  /** Between two reads of the relay stream while the target is up to date. */
  pollMs: number;
  /** How long a lease lasts; it is renewed when a third of it has passed, so a POST (at most 10 s) ends before it would expire. */
  leaseMs: number;
  /** Entries read at once. */
  batch: number;
}

export interface TargetRelayOptions {
  store: RedisRelayStore;
  target: RelayTarget;
  /** The first WHATSAPP_APP_SECRET: signs the bodies of a target without a secret of its own. */
  metaSecret: Secret;
  /** This replica's ID in the lease. */
  owner: string;
  /** HOOK_RETRY_HOURS in ms. */
  retryMs: number;
  /** Where a target without a cursor starts (ms; see start-cursor.lua). */
  startFrom: number;
  logger: Logger;
  timing: RelayTiming;
  signal: AbortSignal;
  now: () => number;
  /** Whether the connection takes commands now, after waiting a moment for it (false: Redis is away, nothing is read). */
  connected: () => Promise<boolean>;
}

/** A failure of Redis (away, refused) is said at most once per this long. */
const TROUBLE_LOG_MS = 10_000;
/** The pause after a failed round (Redis away). */
const TROUBLE_PAUSE_MS = 1000;

/**
 * Forwards the relay stream to one target, one body after another, from its cursor in Redis:
 * the cursor moves on a 2xx (or when a body is dead), so a replica that dies resends at most
 * the body it was posting (at least once), and whichever replica holds the target's lease goes
 * on from there. A failing target holds only its own bodies back: each target has its own loop.
 */
export class TargetRelay {
  readonly #o: TargetRelayOptions;
  #failing: Failing | undefined;
  /** ms the lease was last taken or renewed; undefined while this replica does not hold it. */
  #leaseAt: number | undefined;
  #deadInStreak = 0;
  #lastTrouble = 0;

  constructor(options: TargetRelayOptions) {
    this.#o = options;
  }

  /** Runs until the signal is aborted, then gives the lease back. */
  async run(): Promise<void> {
    const { signal } = this.#o;
    while (!signal.aborted) {
      let pause: number;
      try {
        pause = await this.#round();
      } catch (error) {
        this.#leaseAt = undefined;
        if (signal.aborted) break;
        this.#reportTrouble(error);
        pause = TROUBLE_PAUSE_MS;
      }
      if (pause > 0) await sleep(pause, undefined, { signal }).catch(() => undefined);
    }
    if (this.#leaseAt !== undefined) await this.#o.store.releaseLease(this.#o.target.name, this.#o.owner).catch(() => undefined);
  }

  /** One round: hold the lease, read after the cursor, work off what can be now. Answers how long to pause before the next. */
  async #round(): Promise<number> {
    const { store, target, timing } = this.#o;
    if (!(await this.#o.connected())) return timing.pollMs;
    if (!(await this.#holdLease())) return timing.leaseMs / 3;
    const cursor = await store.cursor(target.name, this.#o.startFrom);
    const entries = await store.entriesAfter(cursor, timing.batch);
    if (entries.length === 0) return timing.pollMs;
    for (const entry of entries) {
      if (this.#o.signal.aborted) return 0;
      const pause = await this.#handle(entry);
      if (pause !== undefined) return pause;
    }
    return 0;
  }

  /** One body: posted, waited for, or dead. Answers a pause when the round must end here (undefined: go on to the next body). */
  async #handle(entry: RelayEntry): Promise<number | undefined> {
    const { retryMs, timing, now } = this.#o;
    const step = nextStep(this.#failing, entry.receivedAt, now(), retryMs);
    if (step.kind === 'wait') return Math.min(step.ms, timing.leaseMs / 3);
    if (step.kind === 'dead') return (await this.#finish(entry, 'dead', step.reason)) ? undefined : 0;
    if (!(await this.#holdLease())) return 0;
    const answer = await this.#post(entry);
    if (answer.ok) {
      this.#recovered();
      return (await this.#finish(entry, 'forwarded', '')) ? undefined : 0;
    }
    const { failing, dead } = afterFailure(this.#failing, answer.reason, entry.receivedAt, now(), retryMs);
    if (this.#failing === undefined) {
      this.#o.logger.warn(
        { target: this.#o.target.name, reason: answer.reason },
        'relay target not taking webhooks: they wait and are retried',
      );
    }
    this.#failing = failing;
    if (dead) return (await this.#finish(entry, 'dead', answer.reason)) ? undefined : 0;
    await this.#o.store.countRetry(this.#o.target.name);
    return Math.max(0, Math.min(failing.nextAttemptAt - now(), timing.leaseMs / 3));
  }

  #post(entry: RelayEntry): Promise<DeliveryAnswer> {
    const { target, metaSecret } = this.#o;
    return postDelivery(target.url, entry.body, relayHeaders(target, entry.body, entry.contentType, metaSecret));
  }

  /** Moves the cursor past `entry`; false when this replica may not go on with the batch it read (lease lost, cursor moved). */
  async #finish(entry: RelayEntry, outcome: 'forwarded' | 'dead', reason: string): Promise<boolean> {
    const { store, target, owner, now } = this.#o;
    const done = await store.advance(target.name, owner, entry, outcome, reason, now());
    if (done === 'lost') this.#leaseAt = undefined;
    if (done !== 'done') return false;
    if (outcome === 'dead') {
      if (this.#deadInStreak === 0) {
        this.#o.logger.warn(
          { target: target.name, entry: entry.id, reason },
          'relay target did not take a webhook within HOOK_RETRY_HOURS: kept in its dead letters',
        );
      }
      this.#deadInStreak += 1;
    }
    return true;
  }

  #recovered(): void {
    if (this.#failing !== undefined) {
      this.#o.logger.info({ target: this.#o.target.name, dead: this.#deadInStreak }, 'relay target takes webhooks again');
    }
    this.#failing = undefined;
    this.#deadInStreak = 0;
  }

  /** Takes the lease, or renews it once a third of it has passed; false while another replica holds it. */
  async #holdLease(): Promise<boolean> {
    const { store, target, owner, timing, now } = this.#o;
    const at = now();
    if (this.#leaseAt !== undefined && at - this.#leaseAt < timing.leaseMs / 3) return true;
    const held = await store.holdLease(target.name, owner, timing.leaseMs);
    // Another replica forwards now: what this one knew of the target's failures is stale when it takes over again.
    if (!held) this.#failing = undefined;
    this.#leaseAt = held ? at : undefined;
    return held;
  }

  #reportTrouble(error: unknown): void {
    const at = Date.now();
    if (at - this.#lastTrouble < TROUBLE_LOG_MS) return;
    this.#lastTrouble = at;
    this.#o.logger.warn(
      { target: this.#o.target.name, reason: error instanceof Error ? error.message : String(error) },
      'relay cannot read or record its progress in Redis (retrying)',
    );
  }
}
