import type { PortfolioAssignments } from '../../portfolios/portfolios.js';
import type { RedisClient } from '../key-scope.js';
import { ReplicaWait } from '../replica-wait.js';
import { LedgerClock, type LedgerClockSetting } from './ledger-clock.js';
import { campaignLedgerKeys, campaignNumbersKey } from './ledger-keys.js';
import { withLedgerCommands, type LedgerCommands } from './ledger-scripts.js';

/** The error-spike brake (see Config.autoPause); window 0 = off. */
export interface AutoPauseSettings {
  failureShare: number;
  window: number;
}

/** Ledger settings from config. */
export interface LedgerOptions {
  autoPause?: AutoPauseSettings;
  /** The duplicate-send guard's window (DUPLICATE_WINDOW_HOURS) in ms; 0 or absent = off. */
  duplicateWindowMs?: number;
  /** How long an in-doubt row waits for a status webhook (Config.confirmWindowMs); 0 = off: `unknown` at once. */
  confirmWindowMs?: number;
  /** How long a `held` row (held_for_quality_assessment) waits for its status webhook (Config.heldPatienceMs); default 24 h. */
  heldPatienceMs?: number;
  /**
   * REDIS_WAIT_REPLICAS: claims and ingested rows are on this many replicas before a send may
   * leave (WAIT), so a master lost in a failover cannot take a claim with it and let the row be
   * sent twice. 0 = off (a single Redis, or a cluster without replicas).
   */
  waitReplicas?: number;
  /** A warning when replicas did not acknowledge in time (the send goes ahead). */
  onReplicasBehind?: (acknowledged: number, wanted: number) => void;
  /** PORTFOLIOS: each number's business portfolio, whose opt-outs all its numbers share; absent = every number in one. */
  portfolios?: PortfolioAssignments;
  /** Tests only (never from config): a clock they move instead of waiting; absent = Redis's clock. */
  clock?: LedgerClockSetting;
}

/** What every part of RedisLedger shares: the connection, prefix, clock, settings, campaign keys, the wait for replicas. */
export class LedgerContext {
  readonly redis: RedisClient & LedgerCommands;
  readonly clock: LedgerClock;
  readonly brake: AutoPauseSettings;
  readonly duplicateWindowMs: number;
  readonly confirmWindowMs: number;
  readonly portfolios: PortfolioAssignments;
  readonly heldPatienceMs: number;
  readonly #replicas: ReplicaWait;
  /** Campaign ID → phone number ID: fixed at creation, so read once per process. */
  readonly #numbers = new Map<string, string>();

  constructor(
    redis: RedisClient,
    readonly prefix: string,
    options: LedgerOptions,
  ) {
    this.redis = withLedgerCommands(redis);
    this.clock = new LedgerClock(redis, options.clock);
    this.brake = options.autoPause ?? { failureShare: 1, window: 0 };
    this.duplicateWindowMs = options.duplicateWindowMs ?? 0;
    this.confirmWindowMs = options.confirmWindowMs ?? 0;
    this.portfolios = options.portfolios ?? new Map();
    this.heldPatienceMs = options.heldPatienceMs ?? 24 * 3_600_000;
    this.#replicas = new ReplicaWait(redis, {
      replicas: options.waitReplicas ?? 0,
      ...(options.onReplicasBehind === undefined ? {} : { onBehind: options.onReplicasBehind }),
    });
  }

  /**
   * Where a campaign's keys live: under its phone number's scope. The number is given by the
   * caller where it knows it (a worker), else read from the campaign index once; a campaign
   * that does not exist gets '' (its keys then name nothing).
   */
  async numberOf(campaignId: string, given?: string): Promise<string> {
    if (given !== undefined && given !== '') return given;
    return (await this.numbersOf([campaignId])).get(campaignId) ?? '';
  }

  /** The numbers of many campaigns at once (one HMGET for those not known yet); a campaign that does not exist is left out. */
  async numbersOf(campaignIds: readonly string[]): Promise<Map<string, string>> {
    const unknown = campaignIds.filter((id) => !this.#numbers.has(id));
    if (unknown.length > 0) {
      const read = await this.redis.hmget(campaignNumbersKey(this.prefix), ...unknown);
      unknown.forEach((id, i) => {
        const number = read[i];
        if (number !== null && number !== undefined) this.#numbers.set(id, number);
      });
    }
    const found = new Map<string, string>();
    for (const id of campaignIds) {
      const number = this.#numbers.get(id);
      if (number !== undefined) found.set(id, number);
    }
    return found;
  }

  async keys(campaignId: string, phoneNumberId?: string): Promise<ReturnType<typeof campaignLedgerKeys> & { phoneNumberId: string }> {
    const number = await this.numberOf(campaignId, phoneNumberId);
    return { ...campaignLedgerKeys(this.prefix, number, campaignId), phoneNumberId: number };
  }

  /** Whether writes wait for replicas (REDIS_WAIT_REPLICAS above 0). */
  get waitsForReplicas(): boolean {
    return this.#replicas.waits;
  }

  /**
   * With REDIS_WAIT_REPLICAS: waits until the writes made so far on the connection to `key`'s node are on the replicas.
   * `writtenOn`: the CLIENT ID they went out on; false when the wait ran on another connection (see ReplicaWait).
   */
  async replicated(key: string, writtenOn?: number): Promise<boolean> {
    return this.#replicas.replicated(key, writtenOn);
  }
}

/** Runs `apply` once per phone number over that number's updates; answers come back in the updates' order. */
export async function perNumber<U extends { phoneNumberId: string }, A>(
  updates: readonly U[],
  apply: (number: string, group: U[]) => Promise<A[]>,
): Promise<A[]> {
  const answers = new Array<A>(updates.length);
  for (const number of new Set(updates.map((u) => u.phoneNumberId))) {
    const indexes = updates.flatMap((u, i) => (u.phoneNumberId === number ? [i] : []));
    const got = await apply(
      number,
      indexes.map((i) => updates[i] as U),
    );
    indexes.forEach((at, j) => (answers[at] = got[j] as A));
  }
  return answers;
}

/** A lanes hash (index → zones joined by &) as an array by index. */
export function lanesOf(hash: Record<string, string>): string[][] {
  const lanes: string[][] = [];
  for (const [index, zones] of Object.entries(hash)) lanes[Number(index)] = zones === '' ? [] : zones.split('&');
  return Array.from(lanes, (zones) => zones ?? []);
}
