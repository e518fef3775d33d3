import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../key-scope.js';
import { LUA_DIR, loadLuaCommand, loadLuaScript } from '../lua-scripts.js';
import { pacerKeys } from '../service-keys.js';
import { TickBatch } from '../ledger/tick-batch.js';
import { RedisClockBounds } from './redis-clock-bounds.js';
import type { SendPacer } from '../../campaigns/feed/send-pacer.js';
import type { RequestWrite } from '../../cloud-api/post-exchange.js';

/** The pacer's scripts (src/redis/lua/pacer/): spacing, then the ceiling. Their headers say why each exists. */
const PACER_LUA_DIR = new URL('pacer/', LUA_DIR);
const RESERVE_SLOT = loadLuaCommand('reserve-slot', PACER_LUA_DIR);
/** Defined without a key count: each call passes one key (the log) or two (and the audit key, see `auditKey`). */
const ADMIT = loadLuaScript('admit', PACER_LUA_DIR);

interface PacerCommands {
  cwReserveSlot(key: string, intervalMicros: number, count: number, now: number | ''): Promise<string>;
  cwAdmit(numberOfKeys: number, ...args: (string | number)[]): Promise<string[]>;
}

/**
 * One ask of admit.lua: an admission (the send's slot, performance.now()'s clock, when asked
 * ahead of it) or the correction of a send that left late (µs to move its stamp).
 */
type PacerAsk = { member: string; slotAt?: number | undefined } | { member: string; lateMicros: number };

/** An ask's answer: for an admission, the wait until its stamp (µs, from Redis's now); for a correction, the stamp now (µs). */
interface PacerAnswer {
  value: number;
  /** Redis's now (ms) in the call that carried it. */
  redisNowMs: number;
}

/**
 * Admissions asked ahead of their slots gather this long into one call: a send asks right
 * after its claim, which comes CLAIM_LEAD_MS before its slot, so the ask and its round trip
 * are off the send's path, and at 1,000/s one call stamps a few sends instead of one. The
 * corrections of late sends ride in the same calls (see admit.lua).
 */
const ADMIT_GATHER_MS = 2;

/** An admitted send: `member` names it in the log (and the audit key); `left()` resolves once a late send's stamp is corrected. */
export interface PacerAdmission {
  readonly member: string;
  left(write: RequestWrite): Promise<void>;
}

/** Evenly spaced sends, never more than `messagesPerSecond` in any second, across all workers. */
export class RedisSendPacer implements SendPacer {
  readonly #redis: RedisClient & PacerCommands;
  readonly #slotKey: string;
  readonly #logKey: string;
  readonly #rate: number;
  readonly #intervalMicros: number;
  readonly #windowMicros: number;
  readonly #memberPrefix = randomBytes(4).toString('hex');
  readonly #auditKey: string | undefined;
  readonly #clock: (() => number) | undefined;
  // Slots and admissions gather the sends of one turn of the event loop into one script call
  // each: at 1,000/s the pacer's calls, one a send for each step, took about a tenth of a
  // worker's CPU. Corrections gather with the admissions asked ahead: a call each cost a
  // round trip for more than half the sends at 1,000/s.
  readonly #slots = new TickBatch<null, number>((_, items) => this.#reserveSlots(items.length));
  readonly #admissions = new TickBatch<PacerAsk, PacerAnswer>((_, asks) => this.#ask(asks));
  readonly #aheadAdmissions = new TickBatch<PacerAsk, PacerAnswer>((_, asks) => this.#ask(asks), { gatherMs: ADMIT_GATHER_MS });
  /** Redis's clock against this one, from every call: a send waits for its stamp on this clock. */
  readonly #clockBounds = new RedisClockBounds();
  #sequence = 0;
  /** The sends waiting for their turn before their slots, by when they wake (see WAKE_GRID_MS). */
  readonly #wakes = new Map<number, Promise<void>>();

  /**
   * `auditKey`: also keep every admission, stamped on Redis's clock (µs), in this sorted set,
   * never trimmed (a send that left late carries its corrected stamp). For tests: what the
   * pacer let through is then checked where it is decided, whatever delays a loaded machine
   * adds on the way to the receiver.
   */
  /**
   * `clock`: the time now in µs, read at each call instead of Redis's TIME: a test drives the
   * pacer's decisions through simulated time with it (see grantWait and admitWait).
   */
  constructor(
    redis: RedisClient,
    options: { prefix: string; phoneNumberId: string; messagesPerSecond: number; auditKey?: string; clock?: () => number },
  ) {
    if (!('cwReserveSlot' in redis)) {
      redis.defineCommand('cwReserveSlot', RESERVE_SLOT);
      redis.defineCommand('cwAdmit', { lua: ADMIT });
    }
    this.#redis = redis as RedisClient & PacerCommands;
    // In the number's scope: both scripts stay in its cluster slot.
    const keys = pacerKeys(options.prefix, options.phoneNumberId);
    this.#slotKey = keys.slot;
    this.#logKey = keys.sent;
    this.#rate = options.messagesPerSecond;
    this.#auditKey = options.auditKey;
    this.#clock = options.clock;
    this.#windowMicros = 1_000_000 + CEILING_GUARD_MICROS;
    this.#intervalMicros = Math.round((1_000_000 + SPACING_GUARD_MICROS) / options.messagesPerSecond);
  }

  async reserveSlot(leadMs = 0): Promise<number> {
    const wait = await this.grantWait();
    const slotAt = performance.now() + wait / 1000;
    await this.#wakeAt(Math.floor((slotAt - leadMs) / WAKE_GRID_MS) * WAKE_GRID_MS);
    return Math.max(0, slotAt - performance.now());
  }

  /** Resolves at `at` (performance.now()'s clock, a multiple of WAKE_GRID_MS): one timer for all the sends that wake then. */
  #wakeAt(at: number): Promise<void> {
    const delay = at - performance.now();
    if (delay < 0.5) return Promise.resolve();
    let woken = this.#wakes.get(at);
    if (woken === undefined) {
      woken = new Promise<void>((resolve) =>
        setTimeout(() => {
          this.#wakes.delete(at);
          resolve();
        }, Math.ceil(delay)),
      );
      this.#wakes.set(at, woken);
    }
    return woken;
  }

  /** Reserves the next slot; answers the wait until it, in µs. */
  grantWait(): Promise<number> {
    return this.#slots.add('', null);
  }

  /** Stamps the send `member` at the first moment the ceiling allows (see admit.lua); answers the wait until then, in µs (0: go now). */
  async admitWait(member: string): Promise<number> {
    return (await this.#admissions.add('', { member })).value;
  }

  /**
   * Moves the stamp of `member` later by `lateMicros`, never past Redis's now (see admit.lua), with
   * the next admissions asked ahead (within CORRECTION_GATHER_MS); answers its new stamp, in µs.
   */
  async moveStamp(member: string, lateMicros: number): Promise<number> {
    return (await this.#aheadAdmissions.add('', { member, lateMicros }, CORRECTION_GATHER_MS)).value;
  }

  /** `count` consecutive slots: the wait until each, in µs. */
  async #reserveSlots(count: number): Promise<number[]> {
    const first = Number(await this.#redis.cwReserveSlot(this.#slotKey, this.#intervalMicros, count, this.#clockArg()));
    return Array.from({ length: count }, (_, i) => first + i * this.#intervalMicros);
  }

  /** One admit.lua call: its corrections first, then its admissions; answers each ask in the order given. */
  async #ask(asks: readonly PacerAsk[]): Promise<PacerAnswer[]> {
    const keys = this.#logKeys();
    const askedAt = performance.now();
    const moves: (string | number)[] = [];
    const admissions: (string | number)[] = [];
    for (const ask of asks) {
      if ('lateMicros' in ask) moves.push(ask.member, ask.lateMicros);
      else admissions.push(ask.member, Math.max(0, Math.round(((ask.slotAt ?? askedAt) - askedAt) * 1000)));
    }
    const moveCount = moves.length / 2;
    const args = [this.#rate, this.#windowMicros, this.#clockArg(), moveCount, ...moves, ...admissions];
    const answers = await this.#redis.cwAdmit(keys.length, ...keys, ...args);
    // Redis's now comes last: where the answers stand on this clock.
    const redisNowMs = Number(answers[asks.length]) / 1000;
    if (!Number.isFinite(redisNowMs)) throw new Error(`admit.lua answered ${answers.length} values for ${asks.length} asks and its time`);
    this.#clockBounds.observe(redisNowMs, askedAt, performance.now());
    let nextMove = 0;
    let nextAdmission = moveCount;
    return asks.map((ask) => ({ value: Number(answers['lateMicros' in ask ? nextMove++ : nextAdmission++]), redisNowMs }));
  }

  #logKeys(): string[] {
    return this.#auditKey === undefined ? [this.#logKey] : [this.#logKey, this.#auditKey];
  }

  /** The simulated time now (µs), or '' for Redis's TIME. */
  #clockArg(): number | '' {
    return this.#clock === undefined ? '' : Math.round(this.#clock());
  }

  /**
   * One ask: the send is stamped, and this resolves at its stamp. `slotAt` (performance.now()'s
   * clock): its slot, asked ahead of it; the stamp is then no earlier than the slot. Without
   * one, the send is stamped now unless the ceiling holds it back.
   */
  async admit(slotAt?: number): Promise<PacerAdmission> {
    const member = `${this.#memberPrefix}-${++this.#sequence}`;
    const ask = { member, slotAt };
    const { value: wait, redisNowMs } = await (slotAt === undefined ? this.#admissions.add('', ask) : this.#aheadAdmissions.add('', ask));
    // The stamp on this clock, within the bounds of where Redis's clock stands. The send waits
    // for the latest it can be, so it never leaves before its stamp (a send that leaves early
    // counts in the receiver's second before the one the log counts it in, and nothing can move
    // it back); its lateness counts from the earliest, so a send that leaves late moves its stamp.
    const { earliest, latest } = this.#clockBounds.span(redisNowMs + wait / 1000);
    await untilDue(latest);
    return { member, left: (write) => this.#left(member, earliest, write) };
  }

  /**
   * The stamp is true only if the send leaves right after it. One that leaves later (its
   * answer read late by a busy event loop, a wait for a connection) would bunch at the
   * receiver with the sends admitted after it. Its stamp moves by how late its write ended
   * beyond a small allowance: the time since it was due (the earliest its stamp can be on this
   * clock, so a slow answer counts as lateness), less LATE_DEPARTURE_MS. The bytes left somewhere
   * between the write's start and its end, usually µs apart; a pause of the process in between
   * (another process on the core, a garbage collection) can stretch that to several ms, and the
   * end is the one moment they cannot have left after. So every send leaves at most that
   * allowance after its stamp; one that left before its write's end has a stamp a little late,
   * which only makes the ceiling stricter (see admit.lua); and a send that leaves on time costs
   * nothing more.
   */
  async #left(member: string, due: number, write: RequestWrite): Promise<void> {
    const lateMs = write.endedAt - due - LATE_DEPARTURE_MS;
    if (lateMs <= 0) return;
    // The request does not wait for it (the send path ignores this promise). A failed
    // correction leaves the earlier stamp, which the guard still covers for the usual delays.
    await this.moveStamp(member, Math.round(lateMs * 1000)).catch(() => undefined);
  }
}

/**
 * The ceiling counts a second plus this guard. Sends are stamped at admission (a late one where
 * it left, see admit.lua) and reach the receiver after network and receiver delays; the guard
 * absorbs those, so a receiver's sliding second never holds more than the rate. It is also the
 * pace's cost: whatever the spacing, no pace holds above rate / (1 s + guard) for long, so a guard
 * of 1% of a second would leave nothing for the stalls. Measured at the receiver on a loaded
 * 2-core host (Redis, the sandbox and the worker on the same cores), a send arrives within about
 * 2 ms of its stamp in 99% of sends and within 8 ms in 99.9%; a stall of the whole host can still
 * hold one for tens of ms. The ceiling only binds after a stall, while the late sends catch up.
 * Jitter is a time, not a share of the interval: a fixed guard costs every rate the same share.
 */
const CEILING_GUARD_MICROS = 8_000;

/**
 * The slots are spaced a second plus this over the rate: 1 ms wider than the ceiling's window,
 * so at the even pace the ceiling's log holds a send fewer than it allows and does not bind. The
 * sends that bunch after a stall (a garbage collection, Redis held by a long script) fit into
 * the stall's own room. With both at one guard the log would always be full, and every such
 * bunch would come back a window later as a silence and a bunch again. It costs 0.9% of every rate (991/s
 * of 1,000), which keeps Meta's top tier at 99% of its rate.
 */
const SPACING_GUARD_MICROS = 9_000;

/**
 * A send wakes before its slot (for its claim and its admission, asked ahead) on a grid of this
 * many ms, with the other sends whose slots are as near: at 1,000/s one timer, one claim call
 * and one admission call serve eight sends, where a wake of their own cost each send a turn of
 * the event loop for each step. Only the claim and the ask move (up to this much earlier than
 * CLAIM_LEAD_MS before the slot); the send still leaves at its stamp. At 1,000/s a grid of 4 ms
 * took a worker about 4% more CPU a message than 8, and one of 1 ms more Redis calls than 4.
 */
export const WAKE_GRID_MS = 8;

/**
 * A correction waits up to this long for a call of admissions to ride in. It need not hurry:
 * every admission this worker asks for carries the corrections waiting before it, and another
 * worker's ask is stamped wrong only after `rate` - 1 sends are stamped behind the late one
 * (see admit.lua). At 1,000/s more than half the sends leave over LATE_DEPARTURE_MS late, and
 * their corrections, gathered ADMIT_GATHER_MS only, took about 0.2 calls a message of their own.
 */
const CORRECTION_GATHER_MS = WAKE_GRID_MS;

/**
 * How late after its stamp (on the worker's clock, see admit) a send may leave before the stamp
 * moves. A small part of the ceiling's guard (8 ms), which keeps the rest for the network and
 * the receiver. At 1,000/s on a busy worker more than half the sends leave over 1 ms late; their
 * corrections ride in the admissions' calls (docs/performance.md, "Drain and the ledger's cost").
 */
const LATE_DEPARTURE_MS = 1;

async function sleepMicros(micros: number): Promise<void> {
  if (micros >= 500) await new Promise((resolve) => setTimeout(resolve, Math.ceil(micros / 1000)));
}

/**
 * Waits until `due` (performance.now()'s clock), never less: a send that left before its stamp
 * would count in the receiver's second before the one the log counts it in, as a late one does
 * after. Timers fire on the event loop's cached time, up to a ms early by this clock (for about
 * one send in six at 1,000/s): the rest is waited out with another timer, so the send leaves
 * up to a ms late, which LATE_DEPARTURE_MS allows. Waiting it out a turn of the loop at a time
 * kept the loop busy for that ms instead: about 8% of a worker's CPU at 1,000/s.
 */
async function untilDue(due: number): Promise<void> {
  await sleepMicros((due - performance.now()) * 1000);
  while (performance.now() < due) await new Promise((resolve) => setTimeout(resolve, 1));
}
