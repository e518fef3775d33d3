import type { RedisClient } from '../redis/key-scope.js';
import type { DeliveryLedger, StatusUpdate, TemplateInfoUpdate, TemplateStatusUpdate } from '../campaigns/ledger.js';
import { retryParkedStatuses, settleDeliveryEvents, type ParkedStatus, type StatusApplied } from '../campaigns/settle/delivery-events.js';
import type { InboundEvent, PreferenceEvent, UserIdChange, UserLinkStore } from '../campaigns/settle/user-joins.js';
import { RedisUserLinks } from '../redis/webhooks/redis-user-links.js';
import type { Logger } from '../logging/logger.js';
import type { WebhookMetrics } from '../redis/webhooks/webhook-metrics.js';
import { parseWebhook, type OptOutMatcher, type WebhookEvents } from './webhook-events.js';
import { webhookKeys } from '../redis/webhooks/webhook-keys.js';
import type { LimitUpdate } from './limit-events.js';
import type { AccountError } from '../campaigns/settle/account-errors.js';
import { isKnownPricingCategory } from '../pricing/pricing-category.js';
import { readyWithin } from '../redis/redis-connection.js';
import { redisAnswers } from '../errors/redis-errors.js';

const GROUP = 'appliers';
/** Entries a consumer read and did not acknowledge for this long (it died) are taken over. */
const CLAIM_IDLE_MS = 30_000;
/** How often parked statuses (their send not recorded yet) are tried again. */
const PARKED_RETRY_MS = 1000;

export interface WebhookConsumerOptions {
  /** Its own connection: the consumer blocks on it (XREADGROUP … BLOCK). */
  redis: RedisClient;
  prefix: string;
  ledger: DeliveryLedger;
  logger: Logger;
  /** This process's name in the consumer group (host:pid). */
  consumer: string;
  /**
   * A status for a message no row has yet is kept this long (default 10 min): at 1,000
   * msg/s Meta's `sent` can arrive before the worker has recorded the send's answer.
   */
  parkMs?: number;
  /** OPT_OUT_KEYWORDS: a user's message that is one of them records an opt-out. */
  isOptOut?: OptOutMatcher;
  /** Tests: how long one read blocks (default 1 s), and how often parked statuses are tried again (default 1 s). */
  blockMs?: number;
  /** Entries another consumer read and left unacknowledged this long are taken over (default 30 s). */
  claimIdleMs?: number;
  parkedRetryMs?: number;
  /** /metrics: events by kind and status lag, written in the MULTI that acknowledges their batch. */
  metrics?: WebhookMetrics;
  /**
   * The portfolios' user ID ↔ phone links (src/redis/webhooks/redis-user-links.ts): messages and preferences
   * with a user ID only are joined to their phone by them. Default: on this consumer's
   * connection, every number in the default portfolio.
   */
  links?: UserLinkStore;
  /** Webhooks that change a portfolio's messaging limit (src/portfolios/limit-webhooks.ts); absent: counted only. */
  onLimitUpdates?: (updates: readonly LimitUpdate[]) => Promise<void>;
  /**
   * Account-, app- and system-level errors (src/campaigns/settle/account-errors.ts: kept for the page, halting codes pause the
   * number's campaigns); absent: logged and counted only.
   */
  onAccountErrors?: (errors: readonly AccountError[]) => Promise<void>;
}

/**
 * Works off the webhook inbox (a Redis stream the service appends each signed POST to before
 * answering 200): parses each body, settles its events (src/campaigns/settle), then acknowledges
 * and deletes the entry. A crash between applying and acknowledging only means the entry is
 * applied again (by another consumer after CLAIM_IDLE_MS), which changes nothing: statuses
 * apply by first-seen time. Any number of consumers may run (one per `campaign serve`).
 */
export class WebhookConsumer {
  readonly #o: Required<Omit<WebhookConsumerOptions, 'metrics' | 'onLimitUpdates' | 'onAccountErrors'>> &
    Pick<WebhookConsumerOptions, 'onLimitUpdates' | 'onAccountErrors'>;
  readonly #metrics: WebhookMetrics | undefined;
  readonly #keys: ReturnType<typeof webhookKeys>;
  #running: Promise<void> | undefined;
  #stopping = false;
  #lastParkedRetry = 0;
  /** The consumer group exists (created once; again after an error, e.g. the stream was deleted). */
  #groupReady = false;
  /**
   * Since when entries this consumer read may be unacknowledged (its start; a new batch that failed); undefined once it
   * found none. They come first for at most claimIdleMs: a batch that keeps failing is then retried at XAUTOCLAIM's pace
   * (and its failures there do not bring it first again), so it holds up the rest once, not forever.
   */
  #ownPendingSince: number | undefined = Date.now();

  constructor(options: WebhookConsumerOptions) {
    this.#o = {
      ...options,
      isOptOut: options.isOptOut ?? (() => false),
      parkMs: options.parkMs ?? 600_000,
      blockMs: options.blockMs ?? 1000,
      parkedRetryMs: options.parkedRetryMs ?? PARKED_RETRY_MS,
      claimIdleMs: options.claimIdleMs ?? CLAIM_IDLE_MS,
      links: options.links ?? new RedisUserLinks(options.redis, options.prefix),
    };
    this.#keys = webhookKeys(options.prefix);
    this.#metrics = options.metrics;
  }

  start(): void {
    this.#running ??= this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#running;
  }

  async #loop(): Promise<void> {
    let lastError = 0;
    while (!this.#stopping) {
      try {
        if (!(await this.#connected())) continue;
        await this.processOnce();
      } catch (error) {
        if (this.#stopping) break;
        this.#groupReady = false;
        // Redis away: wait and try again; nothing is acknowledged that was not applied.
        if (Date.now() - lastError > 10_000) await this.#report(error);
        lastError = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /**
   * Whether the connection takes commands now; else waits (up to blockMs) for it to. A fail-fast
   * connection (no offline queue, as `serve` makes them) refuses a command while it connects:
   * the first read at start, and any while Redis is away, would fail for nothing but the timing.
   * One that connects at its first command (lazyConnect, status `wait`) is read at once.
   */
  async #connected(): Promise<boolean> {
    const { redis } = this.#o;
    const status = (): string => redis.status;
    if (status() === 'ready' || status() === 'wait') return true;
    // Closed under the consumer: nothing to read until it is stopped.
    if (status() === 'end') await new Promise((resolve) => setTimeout(resolve, 500));
    else await readyWithin(redis, this.#o.blockMs);
    return status() === 'ready';
  }

  /**
   * Redis unreachable is expected (the service says so once on its own connection): a line without a stack; anything else is
   * a bug. ioredis's connection errors carry no code, so the connection is asked, never the error's text.
   */
  async #report(error: unknown): Promise<void> {
    if (!(await redisAnswers(this.#o.redis)))
      this.#o.logger.warn({ reason: (error as Error).message }, 'the webhook inbox cannot be read while Redis does not answer (retrying)');
    else this.#o.logger.error({ err: error }, 'could not work off the webhook inbox (retrying)');
  }

  /**
   * One round: entries this consumer read and did not get through, else entries a dead consumer left, else new ones
   * (waiting up to blockMs); then parked statuses. Returns entries handled.
   */
  async processOnce(): Promise<number> {
    const { redis, consumer } = this.#o;
    await this.#ensureGroup();
    const own = await this.#ownPending();
    if (own > 0) return own;
    const [, claimed] = (await redis.xautoclaim(this.#keys.inbox, GROUP, consumer, this.#o.claimIdleMs, '0-0', 'COUNT', 100)) as [
      string,
      [string, string[]][],
    ];
    let entries = claimed.filter((e) => e[1] !== null && e[1] !== undefined);
    if (entries.length > 0) await this.#handle(entries);
    else entries = await this.#newEntries();
    if (Date.now() - this.#lastParkedRetry >= this.#o.parkedRetryMs) {
      this.#lastParkedRetry = Date.now();
      await this.#retryParked();
    }
    return entries.length;
  }

  /**
   * Reads new entries (waiting up to blockMs) and handles them. When either fails (a read whose answer was lost is in this
   * consumer's pending entries all the same), those entries are taken first from then on.
   */
  async #newEntries(): Promise<[string, string[]][]> {
    const { redis, consumer } = this.#o;
    try {
      const read = (await redis.xreadgroup(
        'GROUP',
        GROUP,
        consumer,
        'COUNT',
        100,
        'BLOCK',
        this.#o.blockMs,
        'STREAMS',
        this.#keys.inbox,
        '>',
      )) as [string, [string, string[]][]][] | null;
      const entries = read?.[0]?.[1] ?? [];
      if (entries.length > 0) await this.#handle(entries);
      return entries;
    } catch (error) {
      this.#ownPendingSince ??= Date.now();
      throw error;
    }
  }

  /**
   * Handles the entries this consumer read and has not acknowledged, oldest first (a batch whose apply failed: Redis
   * failed over under it). Left to XAUTOCLAIM they would wait CLAIM_IDLE_MS while newer statuses applied, and the in-doubt
   * rule takes statuses of later sends, with none of its own, as proof that a request never reached Meta: its row would
   * be sent again though Meta has it. Returns entries handled; 0 once none is left.
   */
  async #ownPending(): Promise<number> {
    if (this.#ownPendingSince === undefined) return 0;
    if (Date.now() - this.#ownPendingSince > this.#o.claimIdleMs) {
      this.#ownPendingSince = undefined;
      return 0;
    }
    const { redis, consumer } = this.#o;
    const read = (await redis.xreadgroup('GROUP', GROUP, consumer, 'COUNT', 100, 'STREAMS', this.#keys.inbox, '0')) as
      [string, [string, string[] | null][]][] | null;
    const pending = read?.[0]?.[1] ?? [];
    // An entry deleted since it was read comes back without fields: nothing to apply, only to acknowledge.
    const gone = pending.filter((e) => e[1] === null).map((e) => e[0]);
    if (gone.length > 0) await redis.xack(this.#keys.inbox, GROUP, ...gone);
    const entries = pending.filter((e): e is [string, string[]] => e[1] !== null);
    if (entries.length > 0) await this.#handle(entries);
    else if (gone.length === 0) this.#ownPendingSince = undefined;
    return pending.length;
  }

  async #ensureGroup(): Promise<void> {
    if (this.#groupReady) return;
    try {
      // From the stream's start: entries appended before any consumer ran are work too.
      await this.#o.redis.xgroup('CREATE', this.#keys.inbox, GROUP, '0', 'MKSTREAM');
    } catch (error) {
      // BUSYGROUP is Redis's error code (the reply's first word) for a group that exists.
      if (!String((error as Error).message).startsWith('BUSYGROUP')) throw error;
    }
    this.#groupReady = true;
  }

  async #handle(entries: [string, string[]][]): Promise<void> {
    const statuses: StatusUpdate[] = [];
    const inbound: InboundEvent[] = [];
    const preferences: PreferenceEvent[] = [];
    const userIdChanges: UserIdChange[] = [];
    const templates: TemplateStatusUpdate[] = [];
    const limits: LimitUpdate[] = [];
    const templateInfo: TemplateInfoUpdate[] = [];
    const accountErrors: AccountError[] = [];
    const stats: Record<string, number> = { posts: entries.length };
    const metrics = this.#metrics;
    // Metrics hook: what an earlier batch counted before it failed is counted again when it is read again.
    metrics?.discard();
    for (const [, fields] of entries) {
      const body = fieldOf(fields, 'body');
      const parsed = parseWebhook(body ?? '', this.#o.isOptOut);
      if (!parsed.ok) {
        stats.unreadable = (stats.unreadable ?? 0) + 1;
        metrics?.count('unreadable');
        this.#o.logger.warn({ problem: parsed.problem }, 'a signed webhook that cannot be read was dropped');
        continue;
      }
      statuses.push(...parsed.events.statuses);
      inbound.push(...parsed.events.inbound);
      preferences.push(...parsed.events.preferences);
      userIdChanges.push(...parsed.events.userIdChanges);
      templates.push(...parsed.events.templates);
      limits.push(...parsed.events.limits);
      templateInfo.push(...parsed.events.templateInfo);
      accountErrors.push(...parsed.events.accountErrors);
      stats.ignored = (stats.ignored ?? 0) + parsed.events.ignored;
      stats.malformed = (stats.malformed ?? 0) + parsed.events.malformed;
      if (metrics !== undefined) countKinds(metrics, parsed.events);
    }
    const firstSeen = Date.now();
    const settled = await settleDeliveryEvents(
      this.#o.ledger,
      { statuses, inbound, preferences, userIdChanges, templates, templateInfo },
      this.#statusApplied,
      this.#o.links,
    );
    const { counts, unmatched } = settled;
    // Kept, not applied yet: their user ID has no phone yet (applied when a webhook links it).
    metrics?.count('unlinked', counts.unlinked ?? 0);
    for (const { update, campaigns } of settled.templates) {
      this.#o.logger.info({ template: update, campaigns }, `template ${update.name} (${update.language}): ${update.event}`);
    }
    if (limits.length > 0) {
      stats.limits = limits.length;
      await this.#o.onLimitUpdates?.(limits);
    }
    if (accountErrors.length > 0) {
      stats.accountErrors = accountErrors.length;
      if (this.#o.onAccountErrors !== undefined) await this.#o.onAccountErrors(accountErrors);
      else for (const e of accountErrors) this.#o.logger.warn({ ...e }, 'Meta reported an account error');
    }
    // A pricing category Meta added is kept on its row as given; counted so that a card can be taught it.
    const unknownPricing = statuses.filter((s) => s.pricing !== undefined && !isKnownPricingCategory(s.pricing.category));
    if (unknownPricing.length > 0) {
      stats.unknownPricing = unknownPricing.length;
      const categories = [...new Set(unknownPricing.map((s) => s.pricing?.category))];
      this.#o.logger.warn({ categories }, 'statuses with a pricing category this version does not know (kept as given)');
    }
    for (const u of templateInfo) {
      this.#o.logger.info({ template: u }, `template ${u.name} (${u.language}): ${u.kind} ${u.previous || '?'} → ${u.value}`);
    }
    if (unmatched.length > 0)
      await this.#o.redis.zadd(this.#keys.parked, 'NX', ...unmatched.flatMap((u) => [firstSeen, JSON.stringify(u)]));
    for (const [key, n] of Object.entries(counts)) stats[key] = (stats[key] ?? 0) + n;
    await this.#acknowledge(entries, stats);
  }

  /** One MULTI: the batch acknowledged and deleted, its signatures released, its stats and metrics added. */
  async #acknowledge(entries: [string, string[]][], stats: Record<string, number>): Promise<void> {
    const ids = entries.map((e) => e[0]);
    const tx = this.#o.redis
      .multi()
      .xack(this.#keys.inbox, GROUP, ...ids)
      .xdel(this.#keys.inbox, ...ids);
    // The intake drops a replay of a body while its signature is held: applied, the body is welcome again (Meta resends).
    const signatures = entries.map(([, fields]) => fieldOf(fields, 'sig') ?? '').filter((sig) => sig !== '');
    if (signatures.length > 0) tx.hdel(this.#keys.held, ...signatures);
    for (const [key, n] of Object.entries(stats)) if (n > 0) tx.hincrby(this.#keys.stats, key, n);
    this.#metrics?.drainInto(tx);
    await tx.exec();
  }

  /** Metrics hook: a status that found its row, for the status lag, and billable pricing it recorded. */
  readonly #statusApplied: StatusApplied = (update, appliedAt, billed) => {
    this.#metrics?.observeLag(update.at, appliedAt);
    if (billed && update.pricing !== undefined)
      this.#metrics?.countBillable(update.phoneNumberId, update.pricing.category, update.pricing.market);
  };

  /** Parked statuses whose send is recorded now are applied; those older than parkMs are another tool's messages. */
  async #retryParked(): Promise<void> {
    const { redis } = this.#o;
    const members = await redis.zrange(this.#keys.parked, 0, 499, 'WITHSCORES');
    if (members.length === 0) return;
    const now = Date.now();
    const parked: (ParkedStatus & { member: string })[] = [];
    for (let i = 0; i < members.length; i += 2) {
      const member = members[i] ?? '{}';
      parked.push({ member, update: JSON.parse(member) as StatusUpdate, parkedAt: Number(members[i + 1]) });
    }
    this.#metrics?.discard();
    const { done, foreign } = await retryParkedStatuses(this.#o.ledger, parked, { now, parkMs: this.#o.parkMs }, this.#statusApplied);
    if (done.length === 0) return;
    const tx = redis.multi().zrem(this.#keys.parked, ...done.map((p) => p.member));
    if (foreign > 0) tx.hincrby(this.#keys.stats, 'foreign', foreign);
    this.#metrics?.drainInto(tx);
    await tx.exec();
  }
}

/** Metrics hook: a body's events by kind (cw_webhook_events_total). */
function countKinds(metrics: WebhookMetrics, events: WebhookEvents): void {
  for (const status of events.statuses) metrics.count(status.kind);
  metrics.count('message', events.inbound.length);
  metrics.count('user_changed_user_id', events.userIdChanges.length);
  metrics.count('user_preferences', events.preferences.length);
  metrics.count('message_template_status_update', events.templates.length);
  metrics.count('message_template_quality_update', events.templateInfo.filter((u) => u.kind === 'quality').length);
  metrics.count('template_category_update', events.templateInfo.filter((u) => u.kind === 'category').length);
  for (const limit of events.limits) metrics.count(limit.field);
  metrics.count('account_error', events.accountErrors.length);
  for (const error of events.accountErrors) metrics.countAccountError(error.phoneNumberId, error.code);
  metrics.count('ignored', events.ignored);
  metrics.count('malformed', events.malformed);
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
