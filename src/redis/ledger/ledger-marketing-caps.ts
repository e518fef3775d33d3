import type { IngestLedger, SendLedger } from '../../campaigns/ledger.js';
import { MARKETING_CAP_WAIT_MS } from '../../campaigns/marketing-cap-wait.js';
import { portfolioOf } from '../../portfolios/portfolios.js';
import type { LedgerContext } from './ledger-context.js';
import { marketingCapKeys } from './ledger-keys.js';
import { recordMarketingCapKeys } from './script-keys.js';
import { numbersOfPortfolio, portfolioMarketingCapsKey } from '../pacer/portfolio-keys.js';

/*
 * Meta's marketing cap (131049) belongs to the user, and a business portfolio that resends
 * within the wait is penalised whichever of its numbers sends: so a cap learnt on one number
 * holds on every number of the portfolio (src/campaigns/marketing-cap-wait.ts). It is kept as
 * the opt-outs are (ledger-optouts.ts): the portfolio's record in its own scope, and a copy
 * per number in the number's scope, because the claim (claim.lua) runs in the number's cluster
 * slot and can read nothing else. A webhook script (apply-statuses.lua) or a send's answer
 * (record-marketing-cap.lua) records it on its number; it then goes to the record and to every
 * number of the portfolio by one script (apply-marketing-caps.lua), whose rule (the later end
 * wins) makes the copies agree whatever order the calls run in. A number that gets its first
 * campaign takes the record (`adoptMarketingCaps`). Caps end by themselves: nothing lifts them,
 * and a copy expires once its last wait is over.
 */

/** One user's cap: no MARKETING template to them before `until` (ms, the ledger's clock). */
export interface MarketingCap {
  phone: string;
  until: number;
}

/** Caps per script call: one call's arguments stay small however many users a portfolio has capped. */
const CAPS_PER_CALL = 500;

/** Adds the caps to one copy (apply-marketing-caps.lua). */
async function applyToCopy(context: LedgerContext, key: string, caps: readonly MarketingCap[]): Promise<void> {
  for (let i = 0; i < caps.length; i += CAPS_PER_CALL) {
    const args = caps.slice(i, i + CAPS_PER_CALL).flatMap((cap) => [cap.phone, cap.until]);
    await context.redis.cwApplyMarketingCaps(key, context.clock.arg(), ...args);
  }
  // REDIS_WAIT_REPLICAS: a cap a failover took back would let the number resend within the wait.
  await context.replicated(key);
}

/**
 * Adds the caps to the portfolio's record, then to every number of the portfolio. The numbers
 * are listed after the record changed: a number registered meanwhile takes the record (it is
 * registered before it does), one listed here gets the caps.
 */
async function spreadMarketingCaps(context: LedgerContext, portfolio: string, caps: readonly MarketingCap[]): Promise<void> {
  if (caps.length === 0) return;
  const { redis, prefix, portfolios } = context;
  await applyToCopy(context, portfolioMarketingCapsKey(prefix, portfolio), caps);
  const numbers = await numbersOfPortfolio(redis, prefix, portfolios, portfolio);
  await Promise.all(numbers.map((number) => applyToCopy(context, marketingCapKeys(prefix, number).caps, caps)));
}

/** Gives the caps a script recorded on one number (apply-statuses.lua) to the rest of its portfolio, as that number's copy has them. */
export async function spreadCapsFromNumber(context: LedgerContext, phoneNumberId: string, phones: readonly string[]): Promise<void> {
  if (phones.length === 0) return;
  const unique = [...new Set(phones)];
  const ends = await context.redis.zmscore(marketingCapKeys(context.prefix, phoneNumberId).caps, ...unique);
  const caps: MarketingCap[] = [];
  unique.forEach((phone, i) => {
    const until = ends[i];
    if (until !== null && until !== undefined) caps.push({ phone, until: Number(until) });
  });
  await spreadMarketingCaps(context, portfolioOf(context.portfolios, phoneNumberId), caps);
}

/** The caps of one copy that hold now, read in pages. */
async function capsOf(context: LedgerContext, key: string, now: number): Promise<MarketingCap[]> {
  const caps: MarketingCap[] = [];
  let cursor = '0';
  do {
    const [next, flat] = await context.redis.zscan(key, cursor, 'COUNT', 1000);
    cursor = next;
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const until = Number(flat[i + 1]);
      if (until > now) caps.push({ phone: flat[i] ?? '', until });
    }
  } while (cursor !== '0');
  return caps;
}

/**
 * A number registered for a campaign takes its portfolio's caps, once per portfolio (the copy
 * remembers which): first its own caps (learnt while it was in another portfolio) go to the
 * whole portfolio, then the portfolio's record comes to it. Called after the number is in the
 * numbers index, so every later cap reaches it.
 */
export async function adoptMarketingCaps(context: LedgerContext, phoneNumberId: string): Promise<void> {
  const { redis, prefix, portfolios, clock } = context;
  const keys = marketingCapKeys(prefix, phoneNumberId);
  const portfolio = portfolioOf(portfolios, phoneNumberId);
  if ((await redis.get(keys.copiedFrom)) === portfolio) return;
  const now = await clock.now();
  await spreadMarketingCaps(context, portfolio, await capsOf(context, keys.caps, now));
  await applyToCopy(context, keys.caps, await capsOf(context, portfolioMarketingCapsKey(prefix, portfolio), now));
  await redis.set(keys.copiedFrom, portfolio);
}

/** The ledger's part for Meta's marketing cap: what ingest skips, and a cap a send's answer taught. */
export class LedgerMarketingCaps implements Pick<IngestLedger, 'marketingCaps'>, Pick<SendLedger, 'recordMarketingCap'> {
  constructor(private readonly context: LedgerContext) {}

  /** The portfolio's record, and for the number anything its own copy has besides; the later end of the two. */
  async marketingCaps(phoneNumberId: string): Promise<Map<string, number>> {
    const { prefix, portfolios, clock } = this.context;
    const now = await clock.now();
    const [own, record] = await Promise.all([
      capsOf(this.context, marketingCapKeys(prefix, phoneNumberId).caps, now),
      capsOf(this.context, portfolioMarketingCapsKey(prefix, portfolioOf(portfolios, phoneNumberId)), now),
    ]);
    const found = new Map<string, number>();
    for (const { phone, until } of [...own, ...record]) found.set(phone, Math.max(until, found.get(phone) ?? 0));
    return found;
  }

  async recordMarketingCap(phoneNumberId: string, campaignId: string, phone: string): Promise<void> {
    const { redis, prefix, clock } = this.context;
    const { phoneNumberId: number } = await this.context.keys(campaignId, phoneNumberId);
    const keys = recordMarketingCapKeys(prefix, number, campaignId);
    const [, caps] = keys;
    const until = Number(await redis.cwRecordMarketingCap(...keys, clock.arg(), MARKETING_CAP_WAIT_MS, phone));
    if (until === 0) return;
    await this.context.replicated(caps);
    await spreadMarketingCaps(this.context, portfolioOf(this.context.portfolios, number), [{ phone, until }]);
  }
}
