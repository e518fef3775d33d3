import { randomBytes } from 'node:crypto';
import type { LimitHeld } from '../../campaigns/send/messaging-reach.js';
import type { MessagingLimit } from '../../config/number-settings.js';
import { portfolioLimitKeys } from '../pacer/portfolio-limit-keys.js';
import type { LedgerContext } from './ledger-context.js';
import { reachKey, reachPendingKey } from './ledger-keys.js';
import { reachCommitKeys, reachReserveKeys } from './script-keys.js';

/**
 * A lease lives this long at most: a feed and its commit take milliseconds, so only a feeder
 * that died holds one this long, and its places are then free again (reach-reserve.lua).
 */
export const REACH_LEASE_MS = 60_000;
/** The reach sets are kept a day after their last change (the scripts' PEXPIRE). */
const REACH_KEPT_MS = 86_400_000;
/** A number's pending record this old was left by a feeder that died before its commit: the next feed commits it. */
export const REACH_RECORD_STALE_MS = 10_000;

/** A lease of places for new recipients, taken from the portfolio before a feed. */
export interface ReachLease {
  id: string;
  portfolio: string;
  /** Places granted (0: none free now). */
  granted: number;
  limit: number;
}

/**
 * The portfolio's side of Meta's messaging limit (src/redis/lua/README.md, "The messaging
 * limit"): a lease before each feed of a number, a commit after it. Each step is one script in
 * the portfolio's slot; the feed itself stays in the number's.
 */
export class PortfolioReach {
  /** "portfolio/number" pairs whose reach set this process has added to the portfolio's. */
  readonly #seeded = new Set<string>();

  constructor(private readonly context: LedgerContext) {}

  /**
   * Once per number and portfolio in this process, before its first lease: the users the
   * number's own reach set holds (counted before the number was in this portfolio, or before
   * the count was the portfolio's) join the portfolio's count, so it starts from what Meta counts.
   */
  async seed(portfolio: string, phoneNumberId: string): Promise<void> {
    const key = `${portfolio}/${phoneNumberId}`;
    if (this.#seeded.has(key)) return;
    const { redis, prefix } = this.context;
    const own = await redis.zrange(reachKey(prefix, phoneNumberId), 0, -1, 'WITHSCORES');
    const target = portfolioLimitKeys(prefix, portfolio).reach;
    for (let i = 0; i < own.length; i += 2000) await redis.zadd(target, 'GT', ...pairsScoreFirst(own.slice(i, i + 2000)));
    if (own.length > 0) await redis.pexpire(target, REACH_KEPT_MS);
    this.#seeded.add(key);
  }

  /** A lease of up to `asked` places, or undefined when no limit applies (unknown or unlimited): nothing is counted then. */
  async reserve(
    portfolio: string,
    phoneNumberId: string,
    asked: number,
    fixed: MessagingLimit | undefined,
  ): Promise<ReachLease | undefined> {
    const { redis, prefix, clock } = this.context;
    const id = `${phoneNumberId}:${randomBytes(6).toString('hex')}`;
    const [granted, limit] = await redis.cwReachReserve(
      ...reachReserveKeys(prefix, portfolio),
      clock.arg(),
      id,
      asked,
      REACH_LEASE_MS,
      fixed === undefined ? '' : String(fixed),
    );
    return Number(granted) < 0 ? undefined : { id, portfolio, granted: Number(granted), limit: Number(limit) };
  }

  /**
   * Commits the feed's records (its own first, then any a dead feeder left behind) to the
   * portfolio, drops them from the number, and lets the number count the held-back recipients
   * the portfolio has reached. The lease ends even when the feed recorded nothing.
   */
  async commit(
    phoneNumberId: string,
    lease: ReachLease | undefined,
    records: readonly string[],
    heldBack: readonly string[],
  ): Promise<{ limitHeld?: LimitHeld }> {
    const { redis, prefix, clock } = this.context;
    const own = new Map<string, string>();
    for (let i = 0; i + 1 < records.length; i += 2) own.set(records[i] ?? '', records[i + 1] ?? '{}');
    if (lease === undefined) {
      // No limit applies now: nothing is counted, records left behind included.
      if (own.size > 0) await redis.hdel(reachPendingKey(prefix, phoneNumberId), ...own.keys());
      return {};
    }
    const keys = reachCommitKeys(prefix, lease.portfolio);
    const commit = (id: string, record: string, held: readonly string[]) => redis.cwReachCommit(...keys, clock.arg(), id, record, ...held);
    for (const [id, record] of own) if (id !== lease.id) await commit(id, record, []);
    const [reached, freesAt, known] = await commit(lease.id, own.get(lease.id) ?? '{}', heldBack);
    if (own.size > 0) await redis.hdel(reachPendingKey(prefix, phoneNumberId), ...own.keys());
    if (known.length > 0) await redis.zadd(reachKey(prefix, phoneNumberId), 'GT', ...pairsScoreFirst(known));
    // Held only because other feeds' leases were out for a moment: no news for the operator.
    if (heldBack.length === 0 || Number(reached) < lease.limit) return {};
    return { limitHeld: { limit: lease.limit, reached: Number(reached), freesAt: Number(freesAt) } };
  }
}

/** {member, score, …} as ZADD takes them: score first. */
function pairsScoreFirst(flat: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push(flat[i + 1] ?? '0', flat[i] ?? '');
  return out;
}
