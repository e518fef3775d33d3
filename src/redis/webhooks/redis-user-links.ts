import type { RedisClient } from '../key-scope.js';
import type { PendingUserEvent, ReleasedEvents, UserIdChange, UserLink, UserLinkStore } from '../../campaigns/settle/user-joins.js';
import { portfolioOf, type PortfolioAssignments } from '../../portfolios/portfolios.js';
import { portfolioScope } from '../pacer/portfolio-keys.js';
import { userLinkScripts } from './user-link-scripts.js';

/** Events kept per user ID while its phone is unknown: a bound, so one chatty username user cannot grow a list for ever. */
export const MAX_PENDING_PER_USER = 200;
/**
 * A link confirmed again is rewritten only when it is this much newer than the stored one: a
 * send's sent, delivered and read all carry it, and the retention needs days, not seconds.
 */
const REFRESH_MS = 3_600_000;
/**
 * A portfolio's user links (business-scoped user ID ↔ phone), in the portfolio's own scope
 * (`portfolioScope`: one hash tag, one cluster slot, so each script and MULTI below stays in it):
 *
 * - `links`: user ID → "<phone digits> <ms>" as the scripts answer it (the newest link of that ID
 *   wins), a bucket map (`<links>:map` and its buckets: src/redis/lua/includes/user-link-maps.lua,
 *   which keeps the ID as a digest and the time short) whose walk drops links not confirmed for
 *   RETENTION_DAYS (Meta's time, the link's), as the campaigns that brought them are
 *   (webhooks/prune-links.lua);
 * - `users`: phone → "<user ID> <ms>" (the newest user ID of that phone: the report's column),
 *   a bucket map too;
 * - `pending`: user ID → ms an event was last kept for it (for pruning); `pending:<user ID>`:
 *   those events (JSON), at most MAX_PENDING_PER_USER, dropped RETENTION_DAYS after the last.
 */
export function userLinkKeys(
  prefix: string,
  portfolio: string,
): { links: string; users: string; pending: string; pendingOf(userId: string): string } {
  const scope = `${portfolioScope(prefix, portfolio)}:user`;
  return {
    links: `${scope}:links`,
    users: `${scope}:users`,
    pending: `${scope}:pending`,
    pendingOf: (userId) => `${scope}:pending:${userId}`,
  };
}

/**
 * The user links of every portfolio, read and written by small scripts that only place them in
 * their maps (which link is newer, a fact Meta states, not a ledger rule, is decided here). Two
 * consumers learning the same user at once may both write; the newer timestamp wins at the
 * next event, and every write is a link Meta gave.
 */
export class RedisUserLinks implements UserLinkStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly portfolios: PortfolioAssignments = new Map(),
    /** RETENTION_DAYS in ms; 0 keeps links until removed by hand. */
    private readonly retentionMs = 0,
  ) {}

  /** The `links` keys whose older sorted set of confirmations this process has dropped. */
  readonly #seenDropped = new Set<string>();

  #keys(phoneNumberId: string): ReturnType<typeof userLinkKeys> {
    return userLinkKeys(this.prefix, portfolioOf(this.portfolios, phoneNumberId));
  }

  async learn(links: readonly UserLink[]): Promise<void> {
    for (const [, group] of this.#byPortfolio(links)) {
      const keys = this.#keys(group[0]?.phoneNumberId ?? '');
      const newest = new Map<string, UserLink>();
      for (const link of group) if ((newest.get(link.userId)?.at ?? -1) <= link.at) newest.set(link.userId, link);
      const ids = [...newest.keys()];
      const phones = [...new Set(ids.map((id) => newest.get(id)?.waId ?? ''))];
      const scripts = userLinkScripts(this.redis);
      const both = await scripts.cwReadUserLinks(keys.links, keys.users, ids.length, ...ids, ...phones);
      const [stored, storedUsers] = [both.slice(0, ids.length), both.slice(ids.length)];
      const linkWrites: string[] = [];
      const userWrites: string[] = [];
      ids.forEach((id, i) => {
        const link = newest.get(id);
        if (link === undefined || !newer(stored[i], link.waId, link.at)) return;
        linkWrites.push(id, `${link.waId} ${link.at}`);
      });
      const userOfPhone = new Map<string, UserLink>();
      for (const link of newest.values()) if ((userOfPhone.get(link.waId)?.at ?? -1) <= link.at) userOfPhone.set(link.waId, link);
      phones.forEach((phone, i) => {
        const link = userOfPhone.get(phone);
        if (link !== undefined && newer(storedUsers[i], link.userId, link.at)) userWrites.push(phone, `${link.userId} ${link.at}`);
      });
      if (linkWrites.length + userWrites.length === 0) continue;
      await scripts.cwWriteUserLinks(keys.links, keys.users, linkWrites.length / 2, ...linkWrites, ...userWrites);
      await this.#prune(keys);
    }
  }

  async rename(changes: readonly UserIdChange[]): Promise<void> {
    const links: UserLink[] = [];
    for (const change of changes) {
      const previous = change.previous === undefined ? undefined : (await this.phonesOf(change.phoneNumberId, [change.previous]))[0];
      const waId = change.waId ?? previous;
      // The old ID keeps its link too: an event Meta sent before the change may still come.
      if (waId !== undefined) links.push({ phoneNumberId: change.phoneNumberId, userId: change.userId, waId, at: change.at });
    }
    if (links.length > 0) await this.learn(links);
  }

  async phonesOf(phoneNumberId: string, userIds: readonly string[]): Promise<(string | undefined)[]> {
    if (userIds.length === 0) return [];
    const keys = this.#keys(phoneNumberId);
    const stored = await userLinkScripts(this.redis).cwReadUserLinks(keys.links, keys.users, userIds.length, ...userIds);
    return stored.map(valueOf);
  }

  async userIdsOf(phoneNumberId: string, waIds: readonly string[]): Promise<(string | undefined)[]> {
    return this.userIdsIn(portfolioOf(this.portfolios, phoneNumberId), waIds);
  }

  /** Per phone (digits, or E.164), the user ID the portfolio's webhooks taught, if any. */
  async userIdsIn(portfolio: string, waIds: readonly string[]): Promise<(string | undefined)[]> {
    if (waIds.length === 0) return [];
    const keys = userLinkKeys(this.prefix, portfolio);
    const stored = await userLinkScripts(this.redis).cwReadUserLinks(keys.links, keys.users, 0, ...waIds.map((w) => w.replace(/^\+/, '')));
    return stored.map(valueOf);
  }

  async park(events: readonly PendingUserEvent[]): Promise<void> {
    const now = Date.now();
    for (const [, group] of this.#byPortfolio(events.map((e) => ({ ...e, phoneNumberId: e.event.phoneNumberId })))) {
      const keys = this.#keys(group[0]?.phoneNumberId ?? '');
      const tx = this.redis.multi();
      for (const { kind, event } of group) {
        const userId = event.userId ?? '';
        const list = keys.pendingOf(userId);
        tx.rpush(list, JSON.stringify({ kind, event }));
        tx.ltrim(list, -MAX_PENDING_PER_USER, -1);
        if (this.retentionMs > 0) tx.pexpire(list, this.retentionMs);
        tx.zadd(keys.pending, now, userId);
      }
      await tx.exec();
    }
  }

  async release(wanted: readonly { phoneNumberId: string; userId: string }[]): Promise<ReleasedEvents> {
    const events: PendingUserEvent[] = [];
    const taken: { keys: ReturnType<typeof userLinkKeys>; userId: string; count: number }[] = [];
    for (const [, group] of this.#byPortfolio(wanted)) {
      const keys = this.#keys(group[0]?.phoneNumberId ?? '');
      const all = [...new Set(group.map((g) => g.userId))];
      // Most user IDs never had an event waiting: one ZMSCORE says which did (an entry stays until pruned).
      const scores = await this.redis.zmscore(keys.pending, ...all);
      const ids = all.filter((_, i) => scores[i] !== null && scores[i] !== undefined);
      if (ids.length === 0) continue;
      const pipeline = this.redis.pipeline();
      for (const userId of ids) pipeline.lrange(keys.pendingOf(userId), 0, -1);
      const answers = (await pipeline.exec()) ?? [];
      ids.forEach((userId, i) => {
        const items = (answers[i]?.[1] ?? []) as string[];
        if (items.length === 0) return;
        for (const item of items) events.push(JSON.parse(item) as PendingUserEvent);
        taken.push({ keys, userId, count: items.length });
      });
    }
    return {
      events,
      // Only what was read goes: an event parked meanwhile stays for the next release.
      done: async (userIds) => {
        for (const { keys, userId, count } of taken) {
          if (!userIds.has(userId)) continue;
          const list = keys.pendingOf(userId);
          // The index entry stays until the retention prunes it: removing it here could race a new park.
          await this.redis.ltrim(list, count, -1);
        }
      },
    };
  }

  /** Links not confirmed for RETENTION_DAYS, and parked events past it: a step of webhooks/prune-links.lua when one is due. */
  async #prune(keys: ReturnType<typeof userLinkKeys>): Promise<void> {
    if (this.retentionMs <= 0) return;
    if (!this.#seenDropped.has(keys.links)) {
      this.#seenDropped.add(keys.links);
      // A sorted set of when each link was confirmed, which the walk makes unneeded, may be left from an older layout.
      await this.redis.unlink(keys.links.replace(/:links$/, ':seen'));
    }
    await userLinkScripts(this.redis).cwPruneLinks(keys.links, keys.users, keys.pending, Date.now(), this.retentionMs);
  }

  #byPortfolio<T extends { phoneNumberId: string }>(items: readonly T[]): Map<string, T[]> {
    const groups = new Map<string, T[]>();
    for (const item of items) {
      const portfolio = portfolioOf(this.portfolios, item.phoneNumberId);
      const group = groups.get(portfolio);
      if (group === undefined) groups.set(portfolio, [item]);
      else group.push(item);
    }
    return groups;
  }
}

/** Whether a link (value, at) should replace the stored "<value> <ms>": it says something else and is newer, or it is much newer. */
function newer(stored: string | null | undefined, value: string, at: number): boolean {
  const storedAt = atOf(stored);
  if (storedAt > at) return false;
  return valueOf(stored) !== value || at - storedAt >= REFRESH_MS;
}

/** "<value> <ms>" → the ms (−1 when absent). */
function atOf(stored: string | null | undefined): number {
  if (stored === null || stored === undefined) return -1;
  const at = Number(stored.slice(stored.lastIndexOf(' ') + 1));
  return Number.isFinite(at) ? at : -1;
}

/** "<value> <ms>" → the value. */
function valueOf(stored: string | null | undefined): string | undefined {
  if (stored === null || stored === undefined) return undefined;
  const space = stored.lastIndexOf(' ');
  return space < 0 ? stored : stored.slice(0, space);
}

/** The report's `user_id` column for a campaign sent from `phoneNumberId`: the user IDs its portfolio's links know. */
export function reportUserIds(
  redis: RedisClient,
  prefix: string,
  portfolios: PortfolioAssignments,
  phoneNumberId: string,
): (phones: readonly string[]) => Promise<(string | undefined)[]> {
  const links = new RedisUserLinks(redis, prefix, portfolios);
  return (phones) => links.userIdsOf(phoneNumberId, phones);
}
