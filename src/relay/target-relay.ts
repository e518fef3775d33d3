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
  /** Bodies posted at once while the target takes them (a receiver that takes 50 ms then gets 20 × this a second). */
  inFlight: number;
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
 * Forwards the relay stream to one target from its cursor in Redis. While the target takes
 * them, up to `inFlight` bodies are posted at once (Meta's own webhooks come concurrently and
 * in no set order either), so a receiver's latency does not cap the relay below a campaign's
 * rate of webhooks; the cursor still moves in the stream's order, past each body answered 2xx
 * (or dead), and stops at the first that failed: a replica that dies resends at most the
 * bodies it was posting (at least once), as does a failure (the ones after it in its window).
 * While the target fails, one body at a time is retried with backoff. Whichever replica holds
 * the target's lease goes on from the cursor. A failing target holds only its own bodies back.
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
    let next = 0;
    while (next < entries.length) {
      if (this.#o.signal.aborted) return 0;
      // Failing: the head body alone, on its backoff; taking them: a window of them at once.
      const window = entries.slice(next, next + (this.#failing === undefined ? Math.max(1, timing.inFlight) : 1));
      next += window.length;
      const pause = window.length === 1 ? await this.#handle(window[0] as RelayEntry) : await this.#postWindow(window);
      if (pause !== undefined) return pause;
    }
    return 0;
  }

  /** Posts a window of bodies at once, then settles their answers in the stream's order up to the first failure. */
  async #postWindow(window: readonly RelayEntry[]): Promise<number | undefined> {
    if (!(await this.#holdLease())) return 0;
    const answers = await Promise.all(window.map((entry) => this.#post(entry)));
    for (const [i, entry] of window.entries()) {
      const pause = await this.#settle(entry, answers[i] as DeliveryAnswer);
      if (pause !== undefined) return pause;
    }
    return undefined;
  }

  /** One body: posted, waited for, or dead. Answers a pause when the round must end here (undefined: go on to the next body). */
  async #handle(entry: RelayEntry): Promise<number | undefined> {
    const { retryMs, timing, now } = this.#o;
    const step = nextStep(this.#failing, entry.receivedAt, now(), retryMs);
    if (step.kind === 'wait') return Math.min(step.ms, timing.leaseMs / 3);
    if (step.kind === 'dead') return (await this.#finish(entry, 'dead', step.reason)) ? undefined : 0;
    if (!(await this.#holdLease())) return 0;
    return this.#settle(entry, await this.#post(entry));
  }

  /** What a body's answer does: the cursor past it (2xx), or the target failing from it. Answers a pause as #handle does. */
  async #settle(entry: RelayEntry, answer: DeliveryAnswer): Promise<number | undefined> {
    const { retryMs, timing, now } = this.#o;
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
