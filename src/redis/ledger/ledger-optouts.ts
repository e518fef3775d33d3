import { z } from 'zod';
import { safeJson } from '../../cloud-api/safe-json.js';
import type { IngestLedger, OptOutSource, SendLedger } from '../../campaigns/ledger.js';
import { portfolioOf } from '../../portfolios/portfolios.js';
import { recordOptOutConsent } from '../consent/opt-out-consent.js';
import type { OptOutEvent } from './opt-out-event.js';

export type { OptOutEvent } from './opt-out-event.js';
import { numbersOfPortfolio, portfolioScope } from '../pacer/portfolio-keys.js';
import type { LedgerContext } from './ledger-context.js';
import { numberOptOutKeys, type OptOutCopyKeys } from './ledger-keys.js';
import { optOutCopyKeys } from './script-keys.js';
import { ledgerScriptOnConnection } from './ledger-scripts.js';
import { onConnection, type OnConnection } from '../on-connection.js';
import { connectionKeptChangingError } from '../../errors/redis-errors.js';

/*
 * Opt-outs belong to the business portfolio (Meta's opt-out is from the business, not from
 * one of its numbers). The portfolio's record, in its own scope, is what every number's copy
 * follows; each number keeps a copy in its own scope, because the claim (claim.lua), retry
 * and the webhook scripts run in the number's cluster slot and can read nothing else. Every
 * opt-out or lift is applied by one script (apply-optouts.lua) to the record first, then to
 * each number of the portfolio: the same rules in each copy, so the copies agree. A number
 * that gets its first campaign copies the record when it is registered (`adoptOptOuts`).
 */

/** Events per script call: one call's arguments stay small whatever the size of a portfolio's record. */
const EVENTS_PER_CALL = 500;
/** How many times a copy's events are applied because the connection changed under them, before it fails. */
const REAPPLY_ATTEMPTS = 5;

/**
 * A business portfolio's opt-outs, the record every number's copy follows, in the portfolio's
 * own scope; and `copies`, the numbers that hold a copy (a number that got a webhook before its
 * first campaign is not in the numbers index, but its copy must follow too).
 */
export function portfolioOptOutKeys(prefix: string, portfolio: string): OptOutCopyKeys & { copies: string } {
  const scope = portfolioScope(prefix, portfolio);
  return { optouts: `${scope}:optouts`, prefs: `${scope}:optout-prefs`, copies: `${scope}:optout-copies` };
}

/**
 * Applies the events to one copy (apply-optouts.lua): per event, whether it changed that copy.
 * `register`: the portfolio's record also lists these numbers as holding a copy, first.
 * REDIS_WAIT_REPLICAS: an opt-out a failover took back would let the number send to someone who
 * said STOP, so the events count as applied once they are on the replicas. A wait that ran on a
 * connection other than the writes' (a failover came between them, and the client sent the wait
 * again on its new connection) vouches for nothing: the events are applied again there. Each
 * event changes a copy at most once (newest stop or resume wins, an add keeps the first source,
 * a remove finds nothing the second time), so an event changed the copy if either time said so.
 */
async function applyToCopy(
  context: LedgerContext,
  keys: OptOutCopyKeys,
  events: readonly OptOutEvent[],
  register?: { copies: string; numbers: readonly string[] },
): Promise<boolean[]> {
  const changed = events.map(() => false);
  for (let attempt = 1; attempt <= REAPPLY_ATTEMPTS; attempt++) {
    const connections = new Set<number>();
    if (register !== undefined && register.numbers.length > 0) connections.add(await registerCopies(context, register));
    for (let i = 0; i < events.length; i += EVENTS_PER_CALL) {
      const args = events.slice(i, i + EVENTS_PER_CALL).flatMap((e) => [e.phone, e.action, e.at, e.source ?? '']);
      const { reply, connection } = await applyOnce(context, keys, args);
      reply.forEach((n, j) => (changed[i + j] = changed[i + j] === true || Number(n) === 1));
      connections.add(connection);
    }
    if (!context.waitsForReplicas || connections.size === 0) return changed;
    const [connection] = connections;
    if (connections.size === 1 && (await context.replicated(keys.optouts, connection))) return changed;
  }
  throw connectionKeptChangingError(`the opt-outs of ${keys.optouts}`, REAPPLY_ATTEMPTS);
}

/** Lists `numbers` as holding a copy of the portfolio's record (`copies`); answers the CLIENT ID as applyOnce does. */
async function registerCopies(context: LedgerContext, register: { copies: string; numbers: readonly string[] }): Promise<number> {
  const { redis } = context;
  const { copies, numbers } = register;
  if (!context.waitsForReplicas) {
    await redis.sadd(copies, ...numbers);
    return 0;
  }
  return (await onConnection<number>(redis, copies, (pipeline) => pipeline.sadd(copies, ...numbers))).connection;
}

/** One apply-optouts.lua call; with REDIS_WAIT_REPLICAS, with the CLIENT ID of the connection it ran on (0 without). */
async function applyOnce(
  context: LedgerContext,
  keys: OptOutCopyKeys,
  args: readonly (string | number)[],
): Promise<OnConnection<number[]>> {
  const { redis } = context;
  if (!context.waitsForReplicas) return { reply: await redis.cwApplyOptOuts(...optOutCopyKeys(keys), ...args), connection: 0 };
  return ledgerScriptOnConnection<number[]>(redis, 'cwApplyOptOuts', [...optOutCopyKeys(keys), ...args]);
}

/**
 * Applies the events to the portfolio's record, then to every number of the portfolio, every
 * number holding a copy, and `alsoNumbers` (the numbers the events came for, registered or
 * not: they are recorded as holding a copy from then on). The numbers are listed after the
 * record changed: a number registered meanwhile copies the record (it is registered before it
 * copies), one listed here gets the events. Per event, whether it changed any copy.
 */
export async function spreadOptOuts(
  context: LedgerContext,
  portfolio: string,
  events: readonly OptOutEvent[],
  alsoNumbers: readonly string[] = [],
): Promise<boolean[]> {
  if (events.length === 0) return [];
  const { redis, prefix, portfolios } = context;
  const record = portfolioOptOutKeys(prefix, portfolio);
  const changed = await applyToCopy(context, record, events, { copies: record.copies, numbers: alsoNumbers });
  const [known, copies] = await Promise.all([numbersOfPortfolio(redis, prefix, portfolios, portfolio), redis.smembers(record.copies)]);
  // A number PORTFOLIOS has moved to another portfolio follows that one now.
  const numbers = new Set([...known, ...copies.filter((id) => portfolioOf(portfolios, id) === portfolio), ...alsoNumbers]);
  const perNumber = await Promise.all([...numbers].map((number) => applyToCopy(context, numberOptOutKeys(prefix, number), events)));
  for (const answers of perNumber) answers.forEach((yes, i) => (changed[i] = changed[i] === true || yes));
  // Each event is also an entry of the person's consent history, changed or not.
  await recordOptOutConsent(context, portfolio, events);
  return changed;
}

/** Groups items by the portfolio of their number and spreads each group's events (one listing of numbers per portfolio). */
export async function spreadByPortfolio<T extends { phoneNumberId: string }>(
  context: LedgerContext,
  items: readonly T[],
  eventOf: (item: T) => OptOutEvent | undefined,
): Promise<void> {
  const groups = new Map<string, { events: OptOutEvent[]; numbers: Set<string> }>();
  for (const item of items) {
    const event = eventOf(item);
    if (event === undefined) continue;
    const portfolio = portfolioOf(context.portfolios, item.phoneNumberId);
    const group = groups.get(portfolio) ?? { events: [], numbers: new Set() };
    group.events.push(event);
    group.numbers.add(item.phoneNumberId);
    groups.set(portfolio, group);
  }
  for (const [portfolio, group] of groups) await spreadOptOuts(context, portfolio, group.events, [...group.numbers]);
}

/**
 * Spreads opt-outs a webhook script recorded on one number (an opt-out keyword, a 131050
 * status) to the rest of its portfolio, with the source that number's copy keeps.
 */
export async function spreadFromNumber(context: LedgerContext, phoneNumberId: string, phones: readonly string[]): Promise<void> {
  if (phones.length === 0) return;
  const unique = [...new Set(phones)];
  const sources = await context.redis.hmget(numberOptOutKeys(context.prefix, phoneNumberId).optouts, ...unique);
  const events: OptOutEvent[] = [];
  unique.forEach((phone, i) => {
    const source = sources[i];
    if (source !== null && source !== undefined) events.push({ phone, action: 'add', at: 0, source });
  });
  await spreadOptOuts(context, portfolioOf(context.portfolios, phoneNumberId), events, [phoneNumberId]);
}

/** A whole hash, read in pages. */
async function readHash(context: LedgerContext, key: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, flat] = await context.redis.hscan(key, cursor, 'COUNT', 1000);
    cursor = next;
    for (let i = 0; i + 1 < flat.length; i += 2) found.set(flat[i] ?? '', flat[i + 1] ?? '');
  } while (cursor !== '0');
  return found;
}

function viaOf(source: string): unknown {
  const parsed = safeJson(source);
  return typeof parsed === 'object' && parsed !== null ? (parsed as { via?: unknown }).via : undefined;
}

/**
 * A copy as the events that rebuild it: each user's newest stop/resume (a stop with the source
 * it left), then every other opt-out as an `add`. Applied to another copy, they merge by the
 * same rules as the events themselves.
 */
async function eventsOfCopy(context: LedgerContext, keys: OptOutCopyKeys): Promise<OptOutEvent[]> {
  const [entries, times] = await Promise.all([readHash(context, keys.optouts), readHash(context, keys.prefs)]);
  const events: OptOutEvent[] = [];
  const stopped = new Set<string>();
  for (const [phone, at] of times) {
    const source = entries.get(phone);
    if (source !== undefined && viaOf(source) === 'user_preferences') {
      events.push({ phone, action: 'stop', at: Number(at), source });
      stopped.add(phone);
    } else {
      events.push({ phone, action: 'resume', at: Number(at) });
    }
  }
  for (const [phone, source] of entries) if (!stopped.has(phone)) events.push({ phone, action: 'add', at: 0, source });
  return events;
}

/**
 * A number registered for a campaign takes its portfolio's opt-outs, once per portfolio (the
 * copy remembers which): first its own opt-outs (recorded while it kept them alone, or in
 * another portfolio) go to the whole portfolio, then the portfolio's record comes to it.
 * Called after the number is in the numbers index, so every later opt-out reaches it.
 */
export async function adoptOptOuts(context: LedgerContext, phoneNumberId: string): Promise<void> {
  const { redis, prefix, portfolios } = context;
  const keys = numberOptOutKeys(prefix, phoneNumberId);
  const portfolio = portfolioOf(portfolios, phoneNumberId);
  if ((await redis.get(keys.copiedFrom)) === portfolio) return;
  await spreadOptOuts(context, portfolio, await eventsOfCopy(context, keys), [phoneNumberId]);
  await applyToCopy(context, keys, await eventsOfCopy(context, portfolioOptOutKeys(prefix, portfolio)));
  await redis.set(keys.copiedFrom, portfolio);
}

/**
 * What `optOuts` reads: the portfolio's record, and for a number anything its own copy has
 * besides (an entry it kept before it took the portfolio's record).
 */
export async function optOutEntries(
  context: LedgerContext,
  of: { phoneNumberId: string } | { portfolio: string },
): Promise<Map<string, string>> {
  const { prefix, portfolios } = context;
  if ('portfolio' in of) return readHash(context, portfolioOptOutKeys(prefix, of.portfolio).optouts);
  const [own, record] = await Promise.all([
    readHash(context, numberOptOutKeys(prefix, of.phoneNumberId).optouts),
    readHash(context, portfolioOptOutKeys(prefix, portfolioOf(portfolios, of.phoneNumberId)).optouts),
  ]);
  return new Map([...own, ...record]);
}

const optOutSourceSchema = z.object({
  campaignId: z.string(),
  row: z.number(),
  at: z.number(),
  via: z.enum(['keyword', 'user_preferences', 'operator']).optional(),
});

/** Stored opt-outs (phone → source JSON) as sources. */
function sourcesOf(entries: ReadonlyMap<string, string>): Map<string, OptOutSource> {
  const found = new Map<string, OptOutSource>();
  for (const [phone, json] of entries) {
    const parsed = optOutSourceSchema.safeParse(safeJson(json));
    // An entry this version cannot read still means the recipient opted out.
    found.set(phone, parsed.success ? parsed.data : { campaignId: '?', row: 0, at: 0 });
  }
  return found;
}

/**
 * The ledger's part for opt-outs: what ingest skips, a 131050 a send's answer taught, and the
 * operator's `campaign optouts` on a number's portfolio or a portfolio by name. Webhooks record
 * theirs through the delivery part (ledger-delivery.ts), by the same spread.
 */
export class LedgerOptOuts implements Pick<IngestLedger, 'optOuts'>, Pick<SendLedger, 'recordOptOut' | 'addOptOut' | 'removeOptOut'> {
  constructor(private readonly context: LedgerContext) {}

  /** The opt-outs that hold for a number: its portfolio's. */
  async optOuts(phoneNumberId: string): Promise<Map<string, OptOutSource>> {
    return sourcesOf(await optOutEntries(this.context, { phoneNumberId }));
  }

  /** `campaign optouts list --portfolio`: the portfolio's record. */
  async optOutsOfPortfolio(portfolio: string): Promise<Map<string, OptOutSource>> {
    return sourcesOf(await optOutEntries(this.context, { portfolio }));
  }

  async addOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    const source: OptOutSource = { campaignId: '', row: 0, at: await this.context.clock.now(), via: 'operator' };
    return this.#spread(phoneNumberId, { phone, action: 'add', at: source.at, source: JSON.stringify(source) });
  }

  async removeOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    return this.#spread(phoneNumberId, { phone, action: 'remove', at: 0 });
  }

  async recordOptOut(phoneNumberId: string, phone: string, source: { campaignId: string; row: number }): Promise<void> {
    const at = await this.context.clock.now();
    await this.#spread(phoneNumberId, { phone, action: 'add', at, source: JSON.stringify({ ...source, at }) });
  }

  /** `campaign optouts add --portfolio`: the operator opts a recipient out on every number of the portfolio (false: already). */
  async addPortfolioOptOut(portfolio: string, phone: string): Promise<boolean> {
    const source: OptOutSource = { campaignId: '', row: 0, at: await this.context.clock.now(), via: 'operator' };
    const [changed] = await spreadOptOuts(this.context, portfolio, [
      { phone, action: 'add', at: source.at, source: JSON.stringify(source) },
    ]);
    return changed === true;
  }

  /** `campaign optouts remove --portfolio`: true if the recipient was opted out anywhere in the portfolio and no longer is. */
  async removePortfolioOptOut(portfolio: string, phone: string): Promise<boolean> {
    const [changed] = await spreadOptOuts(this.context, portfolio, [{ phone, action: 'remove', at: 0 }]);
    return changed === true;
  }

  /** One opt-out or lift for the whole portfolio of the number: true if it changed anything. */
  async #spread(phoneNumberId: string, event: OptOutEvent): Promise<boolean> {
    const portfolio = portfolioOf(this.context.portfolios, phoneNumberId);
    const [changed] = await spreadOptOuts(this.context, portfolio, [event], [phoneNumberId]);
    return changed === true;
  }
}
