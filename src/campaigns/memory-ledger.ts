import { MessagingReach } from './send/messaging-reach.js';
import {
  ROW_STATUSES,
  campaignDefinitionSchema,
  type CampaignCounts,
  type CampaignDefinition,
  type CampaignStatus,
  type RowRecord,
  type RowStatus,
} from './campaign.js';
import type {
  CampaignLedger,
  CancelResult,
  ClaimResult,
  FeedEvent,
  FeedOptions,
  FeedResult,
  IngestedRow,
  IngestResult,
  AlreadySent,
  LaneBacklog,
  OptOutSource,
  PauseResult,
  RescheduleResult,
  ResumeResult,
  RetrySelection,
  SettleResult,
  InboundUpdate,
  InDoubtDecisions,
  PreferenceUpdate,
  StatusOutcome,
  StatusUpdate,
  Settlement,
  WindowedCampaigns,
} from './ledger.js';
import { RETRY_HOLD_131049_MS, SERVICE_WINDOW_MS, type RetryPage } from './ledger.js';
import { toRecord, type StoredRow } from './stored-row.js';
import { parseSendJobId, type SendJob } from './send-job.js';

/**
 * The campaign ledger in memory, for unit tests of the logic above it (the producer, the send
 * processor, the controls): no Redis, and a clock the test holds.
 *
 * It follows RedisLedger's contract step for step, not approximately: the same record
 * layout (a campaign's fields and counters, a record per row with its job number `k` and
 * send-window lane `z`), the same backlog (`pending`, and `pending:<lane>` per lane, of
 * "row" or "row:k" entries), the same per-number feed window, active set and duplicate-send
 * guard, and each operation is the Lua script of the same name in src/redis/lua (CLAIM is
 * claim.lua, …), its steps in the same order. Every method does all its work before its
 * first await, so, like a script, it is atomic. test/support/ledger-contract.ts runs the
 * same scenarios against both ledgers.
 *
 * Where the Redis ledger does something subtle, this one keeps it and says why (see the
 * comments marked "As in Redis").
 */

/** The error-spike brake (Config.autoPause, RedisLedger's AutoPauseSettings); window 0 = off. */
export interface MemoryBrakeSettings {
  failureShare: number;
  window: number;
}

export interface MemoryLedgerOptions {
  autoPause?: MemoryBrakeSettings;
  /** The duplicate-send guard's window (DUPLICATE_WINDOW_HOURS) in ms; 0 or absent = off. */
  duplicateWindowMs?: number;
  /** How long an in-doubt row waits for a status webhook (RedisLedger's confirmWindowMs); 0 or absent = off. */
  confirmWindowMs?: number;
  /**
   * The one clock (ms): where RedisLedger takes the host's Date.now() or Redis's TIME, this
   * ledger asks `now`. A feed given `FeedOptions.now` uses that, as RedisLedger does.
   */
  now?: () => number;
}

/** How the feed ranks priorities: lower first (RedisLedger's PRIORITY_SCORE). */
const PRIORITY_SCORE = { high: 0, normal: 1, low: 2 } as const;

const FINAL: ReadonlySet<RowStatus> = new Set<RowStatus>(['sent', 'failed', 'rejected', 'skipped', 'unknown', 'cancelled', 'expired']);
/** The statuses that count as an answer when deciding whether a campaign is complete. */
const ANSWERED: readonly RowStatus[] = ['sent', 'failed', 'rejected', 'skipped', 'unknown', 'cancelled', 'expired'];
/** How many expired entries of the duplicate guard one claim call prunes (the CLAIM script's LIMIT). */
const GUARD_PRUNE_MOST = 100;


/** A campaign's hash in Redis (`campaign:ID`), its rows (`:rows`), backlog (`:pending`) and brake ring (`:recent`). */
interface CampaignRecord {
  /** The definition as written (JSON), parsed on every read as RedisLedger.getCampaign does. */
  definition?: string;
  createdAt?: number;
  /** PRIORITY_SCORE of the definition's priority. */
  priority?: number;
  startsAt?: number;
  startDeadline?: number;
  expiresAt?: number;
  startedAt?: number;
  /** The campaign has a send window (`--window`): its backlog is kept in lanes. */
  window: boolean;
  total: number;
  /** The `n:<status>` counters. */
  counts: Record<RowStatus, number>;
  /** `n:delivered`, `n:read`: rows Meta reported delivered (read ones included) and read. */
  delivered: number;
  read: number;
  paused: boolean;
  pausedReason?: string;
  pausedAt?: number;
  cancelled: boolean;
  cancelReason?: string;
  expired: boolean;
  allowRepeat: boolean;
  ingestDone: boolean;
  /** The reason of the pause an interrupted ingest left (LIFT_INGEST_PAUSE compares it). */
  ingestInterrupted?: string;
  finishedAt?: number;
  recentSends?: number;
  recentFails?: number;
  /** The brake's ring of bits (BITFIELD u1 #i), by position. */
  recent: Map<number, number>;
  rows: Map<number, StoredRow>;
  /** The backlog, front first: "row" (its first job) or "row:k". */
  pending: string[];
  /** With a send window, the backlog of each lane (`pending:<lane>`), front first. */
  lanePending: Map<number, string[]>;
  /** The send window's lanes: index → zones joined by '&' (the `:lanes` hash). */
  lanes: Map<number, string>;
}

/** A phone number's shared keys. */
interface NumberRecord {
  /** Campaigns that may have rows to feed → priority score (the `active` sorted set). */
  active: Map<string, number>;
  /** Jobs fed and not done → ms fed (the `window` sorted set). */
  window: Map<string, number>;
  /** The duplicate-send guard: fingerprint → "campaign/row/ms", and fingerprint → ms for pruning. */
  sent: Map<string, string>;
  sentAt: Map<string, number>;
  /** phone → where its opt-out was learnt. */
  optOuts: Map<string, OptOutSource>;
  /** phone → the newest `user_preferences` event's time (the `optout-prefs` hash). */
  preferenceAt: Map<string, number>;
  /** wa_id → when the user's 24-hour customer-service window closes (the `service-window:*` keys). */
  serviceWindows: Map<string, number>;
  /** In-doubt rows: "campaign/row" → confirm deadline (the `confirm` sorted set). */
  confirm: Map<string, number>;
  /** The latest claim time a status webhook came for (the `status-seen` key); 0 = none yet. */
  statusSeen: number;
  /** Recipients of the last 24 h for the messaging limit: wa_id → ms last fed (the `reach` sorted set). */
  reach: Map<string, number>;
}

export class MemoryLedger implements CampaignLedger {
  readonly #now: () => number;
  readonly #brake: MemoryBrakeSettings;
  readonly #duplicateWindowMs: number;
  readonly #confirmWindowMs: number;
  readonly #campaigns = new Map<string, CampaignRecord>();
  readonly #numbers = new Map<string, NumberRecord>();
  /** campaign ID → createdAt (the `campaigns` sorted set). */
  readonly #listed = new Map<string, number>();
  /** wamid → "campaign/row" (the `wamids` hash that purge and webhooks use). */
  readonly #wamids = new Map<string, string>();

  constructor(options: MemoryLedgerOptions = {}) {
    this.#now = options.now ?? (() => Date.now());
    this.#brake = options.autoPause ?? { failureShare: 1, window: 0 };
    this.#duplicateWindowMs = options.duplicateWindowMs ?? 0;
    this.#confirmWindowMs = options.confirmWindowMs ?? 0;
  }

  // ---- ingest -------------------------------------------------------------------------

  async createCampaign(definition: CampaignDefinition): Promise<void> {
    const c = this.#write(definition.id);
    // As in Redis: the schedule fields are written unconditionally (HSET), the rest only if
    // absent (HSETNX, ZADD NX): creating an existing campaign again keeps its definition.
    if (definition.startsAt !== undefined) c.startsAt = definition.startsAt;
    if (definition.startDeadline !== undefined) c.startDeadline = definition.startDeadline;
    if (definition.expiresAt !== undefined) c.expiresAt = definition.expiresAt;
    if (definition.window !== undefined) c.window = true;
    c.definition ??= JSON.stringify(definition);
    c.createdAt ??= definition.createdAt;
    c.priority ??= PRIORITY_SCORE[definition.priority ?? 'normal'];
    if (!this.#listed.has(definition.id)) this.#listed.set(definition.id, definition.createdAt);
    return Promise.resolve();
  }

  async getCampaign(id: string): Promise<CampaignDefinition | undefined> {
    const json = this.#campaigns.get(id)?.definition;
    // Parsed on the way back, as from Redis: a fresh object, defaults applied.
    return Promise.resolve(json === undefined ? undefined : campaignDefinitionSchema.parse(JSON.parse(json)));
  }

  /** RECORD_INGESTED. */
  async recordIngested(campaignId: string, phoneNumberId: string, rows: readonly IngestedRow[]): Promise<IngestResult> {
    if (rows.length === 0) return { queued: [], alreadySent: [], reopened: 0 };
    const now = this.#now();
    const c = this.#write(campaignId);
    const n = this.#number(phoneNumberId);
    const window = c.allowRepeat ? 0 : this.#duplicateWindowMs;
    // As in Redis, every row's current record is read before any is written (one HMGET).
    const existing = rows.map((r) => c.rows.get(r.row));
    const queuedNow: number[] = [];
    const entries: { list: string[]; entry: string }[] = [];
    const alreadySent: { row: number; detail: string }[] = [];
    let added = 0;
    let reopened = 0;
    for (const [i, r] of rows.entries()) {
      const old = existing[i];
      // A row already there keeps its state, unless it was never sent (rejected or skipped).
      if (old !== undefined && old.s !== 'rejected' && old.s !== 'skipped') continue;
      let rec: StoredRow;
      if (r.status === 'queued') {
        rec = { p: r.phone, s: 'queued', v: [...r.message.values], f: r.message.fingerprint };
        const headerLink = r.message.headerLink ?? '';
        if (headerLink !== '') rec.h = headerLink;
        // Its send-window lane (a campaign with --window).
        if (r.lane !== undefined) rec.z = r.lane;
        const dup = priorSend(n, r.message.fingerprint, campaignId, r.row, now, window);
        if (dup !== undefined) {
          rec.s = 'skipped';
          rec.c = 'ALREADY_SENT';
          rec.d = dup;
          alreadySent.push({ row: r.row, detail: dup });
        } else if (c.cancelled) {
          rec.s = 'cancelled';
        } else if (c.expired) {
          rec.s = 'expired';
        }
      } else {
        rec = { p: r.phone, s: r.status, c: r.errorCode, d: r.errorDetail };
      }
      // Reopened: a job number no earlier job of this row had (BullMQ may still keep that
      // job, completed, and would take a new one under its ID for a duplicate). As in Redis,
      // the new record replaces the old one whole (its attempts go too).
      if (old !== undefined) rec.k = (old.k ?? 0) + 1;
      c.rows.set(r.row, rec);
      c.counts[rec.s]++;
      if (old !== undefined) {
        c.counts[old.s]--;
        if (rec.s === 'queued') reopened++;
      } else {
        added++;
      }
      if (rec.s === 'queued') {
        queuedNow.push(r.row);
        entries.push({ list: listOf(c, rec), entry: entryOf(r.row, rec.k) });
      }
    }
    c.total += added;
    if (entries.length > 0) {
      // Each to the end of its own list: the backlog, or its lane's.
      for (const { list, entry } of entries) list.push(entry);
      this.#activate(c, n, campaignId);
      // A finished campaign with rows to send again is not finished any more.
      delete c.finishedAt;
    }
    return Promise.resolve({ queued: queuedNow, alreadySent, reopened });
  }

  /** PRIOR_SENDS. */
  async priorSends(campaignId: string, phoneNumberId: string, rows: readonly { row: number; fingerprint: string }[]): Promise<AlreadySent[]> {
    const window = this.#campaigns.get(campaignId)?.allowRepeat === true ? 0 : this.#duplicateWindowMs;
    if (window <= 0) return Promise.resolve([]);
    const now = this.#now();
    const n = this.#number(phoneNumberId);
    const already: AlreadySent[] = [];
    for (const { row, fingerprint } of rows) {
      const detail = priorSend(n, fingerprint, campaignId, row, now, window);
      if (detail !== undefined) already.push({ row, detail });
    }
    return Promise.resolve(already);
  }

  async recordLanes(campaignId: string, lanes: readonly { index: number; zones: readonly string[] }[]): Promise<void> {
    if (lanes.length === 0) return Promise.resolve();
    const c = this.#write(campaignId);
    for (const lane of lanes) c.lanes.set(lane.index, lane.zones.join('&'));
    return Promise.resolve();
  }

  async lanes(campaignId: string): Promise<string[][]> {
    return Promise.resolve(lanesOf(this.#campaigns.get(campaignId)?.lanes));
  }

  async allowRepeat(campaignId: string): Promise<void> {
    this.#write(campaignId).allowRepeat = true;
    return Promise.resolve();
  }

  /**
   * INGEST_INTERRUPTED. As in Redis, a finished campaign is marked too (and is no longer
   * finished): the script reads `finishedAt` but only a missing or cancelled campaign refuses.
   */
  async markIngestInterrupted(campaignId: string, reason: string): Promise<boolean> {
    const c = this.#campaigns.get(campaignId);
    if (c?.definition === undefined || c.cancelled) return Promise.resolve(false);
    c.ingestInterrupted = reason;
    c.ingestDone = false;
    delete c.finishedAt;
    pauseIfRunning(c, reason, this.#now());
    return Promise.resolve(true);
  }

  /** LIFT_INGEST_PAUSE: only the pause the interruption left (same reason), never an operator's. */
  async liftIngestPause(campaignId: string): Promise<boolean> {
    const c = this.#campaigns.get(campaignId);
    if (c?.ingestInterrupted === undefined || !c.paused || c.pausedReason !== c.ingestInterrupted || c.cancelled) return Promise.resolve(false);
    liftPause(c);
    return Promise.resolve(true);
  }

  /** FINISH_INGEST. */
  async finishIngest(campaignId: string): Promise<boolean> {
    const c = this.#write(campaignId);
    c.ingestDone = true;
    delete c.ingestInterrupted;
    return Promise.resolve(completeIfDone(c, this.#now()));
  }

  async optOuts(phoneNumberId: string): Promise<Map<string, OptOutSource>> {
    const found = new Map<string, OptOutSource>();
    for (const [phone, source] of this.#numbers.get(phoneNumberId)?.optOuts ?? []) found.set(phone, { ...source });
    return Promise.resolve(found);
  }

  // ---- send ---------------------------------------------------------------------------

  /** CLAIM, for one row. */
  async claim(job: SendJob, phoneNumberId?: string): Promise<ClaimResult> {
    const id = job.campaignId;
    const owner = job.requeue ?? 0;
    const c = this.#campaigns.get(id);
    const number = this.#phoneNumberOf(c, phoneNumberId);
    const n = this.#number(number);
    const now = this.#now();
    const window = this.#duplicateWindowMs;
    // Expiry is judged on the ledger's clock at the claim (Redis's TIME in the script), not
    // on whether the feed has marked the campaign expired yet.
    const expired = c?.expiresAt !== undefined && now >= c.expiresAt;

    const decide = (): ClaimResult | 'missing' => {
      const rec = c?.rows.get(job.row);
      if (c === undefined || rec === undefined) return 'missing';
      // Order matters (see CLAIM): a settled row answers first; only the row's owner goes
      // further; a row left `sending` is in doubt even when paused or cancelled (the hold
      // must not hide a possible send).
      // A `confirming` row waits for a status webhook or the confirm sweep, never for a job.
      if (FINAL.has(rec.s) || rec.s === 'confirming') return { outcome: 'settled', status: rec.s };
      if ((rec.k ?? 0) !== owner) return { outcome: 'stale' };
      if (rec.s === 'sending') return { outcome: 'in-doubt', attempts: rec.a ?? 0 };
      if (c.cancelled || expired) {
        move(c, rec, c.cancelled ? 'cancelled' : 'expired');
        return settled(rec.s, completeIfDone(c, now));
      }
      if (c.paused) {
        this.#park(c, n, id, job.row, rec);
        return { outcome: 'parked' };
      }
      // As in Redis: an empty fingerprint still counts as one here (Lua's '' is true), so
      // the claim records it in the guard although priorSend never matches it.
      if (window > 0 && rec.f !== undefined) {
        const dup = c.allowRepeat ? undefined : priorSend(n, rec.f, id, job.row, now, window);
        if (dup !== undefined) {
          move(c, rec, 'skipped');
          rec.c = 'ALREADY_SENT';
          rec.d = dup;
          return settled('skipped', completeIfDone(c, now));
        }
        n.sent.set(rec.f, `${id}/${job.row}/${now}`);
        n.sentAt.set(rec.f, now);
      }
      rec.a = (rec.a ?? 0) + 1;
      rec.ct = now;
      move(c, rec, 'sending');
      // Values as stored; absent for a row written by a version that kept them only in the job.
      return { outcome: 'claimed', attempt: rec.a, row: { to: rec.p, values: rec.v === undefined ? undefined : [...rec.v], headerLink: rec.h } };
    };

    const result = decide();
    // Every outcome but claimed and in-doubt ends the job's work: its ID leaves the window
    // (a missing row's too, before the error).
    if (result === 'missing' || (result.outcome !== 'claimed' && result.outcome !== 'in-doubt')) n.window.delete(jobIdOf(id, job.row, owner));
    // The guard forgets messages older than the window, a few per call.
    if (window > 0) {
      for (const f of rangeByScore(n.sentAt, now - window, GUARD_PRUNE_MOST)) {
        n.sentAt.delete(f);
        n.sent.delete(f);
      }
    }
    if (result === 'missing') throw new Error(`ledger has no row ${job.row} in campaign ${id}`);
    return Promise.resolve(result);
  }

  /** SETTLE, for one answer. */
  async settle(job: SendJob, settlement: Settlement, phoneNumberId = ''): Promise<SettleResult> {
    const id = job.campaignId;
    const owner = job.requeue ?? 0;
    const c = this.#campaigns.get(id);
    const n = this.#number(this.#phoneNumberOf(c, phoneNumberId));
    const now = this.#now();
    const sent = settlement.status === 'sent';
    const wamid = sent ? settlement.wamid : '';
    const code = sent ? '' : settlement.errorCode;
    const detail = sent ? '' : settlement.errorDetail;

    // A final answer ends the job's work; `queued` does not (BullMQ runs the job again).
    if (settlement.status !== 'queued') n.window.delete(jobIdOf(id, job.row, owner));
    const rec = c?.rows.get(job.row);
    if (c === undefined || rec === undefined) throw new Error(`ledger has no row ${job.row} in campaign ${id}`);
    // First final answer wins; only the row's owner may answer.
    // A `confirming` row's job is done: only a status webhook or the confirm sweep moves it.
    if (FINAL.has(rec.s) || rec.s === 'confirming' || (rec.k ?? 0) !== owner) {
      return Promise.resolve({ status: rec.s, completedCampaign: false, pausedCampaign: false });
    }
    let status: RowStatus;
    if (settlement.status === 'abandoned') status = rec.s === 'sending' ? 'unknown' : 'failed';
    else status = settlement.status;
    if (status === 'unknown' && this.#confirmWindowMs > 0) {
      status = 'confirming';
      rec.cu = now + this.#confirmWindowMs;
      n.confirm.set(`${id}/${job.row}`, rec.cu);
    }
    move(c, rec, status);
    if (wamid !== '') rec.w = wamid;
    if (code !== '') {
      rec.c = code;
      rec.d = detail;
    } else if (status === 'sent') {
      delete rec.c;
      delete rec.d;
    }
    if (status === 'sent') this.#wamids.set(wamid, `${id}/${job.row}`);
    // Meta refused it: not sent, so a later send of the same message is no repeat. (An
    // unknown row may have been sent: it keeps its entry.)
    if (status === 'failed') forgetSend(n, rec.f, id, job.row);
    // When it failed: `campaign retry` holds back 131049 rows for 24 h after it.
    if (status === 'failed') rec.ft = now;
    const paused = this.#applyBrake(c, status, code, detail, now);
    // As in Redis, completion is checked after the brake: a brake tripped by the campaign's
    // last answer is lifted again at once, and that answer reports both.
    const completed = FINAL.has(status) && completeIfDone(c, now);
    return Promise.resolve({ status, completedCampaign: completed, pausedCampaign: paused });
  }

  /** CONFIRM_IN_DOUBT: the in-doubt rule for the number's rows whose confirm window has passed. */
  async confirmInDoubt(phoneNumberId: string, limit: number): Promise<InDoubtDecisions> {
    const now = this.#now();
    const n = this.#number(phoneNumberId);
    const decisions: InDoubtDecisions = { resent: 0, unknown: 0, ended: 0, completedCampaigns: [] };
    for (const member of rangeByScore(n.confirm, now, limit)) {
      n.confirm.delete(member);
      const match = /^(.+)\/(\d+)$/.exec(member);
      const campaignId = match?.[1] ?? '';
      const row = Number(match?.[2]);
      const c = this.#campaigns.get(campaignId);
      const rec = c?.rows.get(row);
      // Gone (purged) or already answered by a status: nothing to decide.
      if (c === undefined || rec === undefined || rec.s !== 'confirming') continue;
      const neverReached = rec.ct !== undefined && n.statusSeen > rec.ct;
      delete rec.cu;
      let final: RowStatus | undefined;
      if (neverReached && rec.rs === undefined && rec.v !== undefined) {
        if (c.cancelled || (c.expiresAt !== undefined && now >= c.expiresAt)) {
          final = c.cancelled ? 'cancelled' : 'expired';
          forgetSend(n, rec.f, campaignId, row);
        } else {
          move(c, rec, 'queued');
          rec.rs = 1;
          rec.d = `${rec.d ?? ''}; no status webhook came for it while later sends from this number had theirs, so it never reached Meta: sent again (once)`;
          this.#park(c, n, campaignId, row, rec);
          decisions.resent++;
        }
      } else {
        final = 'unknown';
        rec.d =
          rec.rs !== undefined
            ? `${rec.d ?? ''}; resent once already and again no answer: not sent a third time`
            : neverReached
              ? `${rec.d ?? ''}; the row has no values to send again`
              : `${rec.d ?? ''}; no status webhook within CONFIRM_WINDOW_SECONDS, and none for later sends from this number either: it may have been delivered, so it is not resent`;
      }
      if (final !== undefined) {
        move(c, rec, final);
        if (final === 'unknown') decisions.unknown++;
        else decisions.ended++;
        if (completeIfDone(c, now)) decisions.completedCampaigns.push(campaignId);
      }
    }
    return Promise.resolve(decisions);
  }

  /** HALT. */
  async halt(job: SendJob, errorCode: string, errorDetail: string, phoneNumberId?: string): Promise<{ completedCampaign: boolean; pausedCampaign: boolean }> {
    const id = job.campaignId;
    const owner = job.requeue ?? 0;
    const c = this.#campaigns.get(id);
    const n = this.#number(this.#phoneNumberOf(c, phoneNumberId));
    const now = this.#now();
    n.window.delete(jobIdOf(id, job.row, owner));
    const rec = c?.rows.get(job.row);
    // As in Redis, a missing row is no error here (RedisLedger ignores the script's 'missing').
    if (c === undefined || rec === undefined) return Promise.resolve({ completedCampaign: false, pausedCampaign: false });
    if (rec.s !== 'sending' || (rec.k ?? 0) !== owner) return Promise.resolve({ completedCampaign: false, pausedCampaign: false });
    // The request was refused: the guard forgets it.
    forgetSend(n, rec.f, id, job.row);
    rec.c = errorCode;
    rec.d = errorDetail;
    if (c.cancelled) {
      move(c, rec, 'cancelled');
      return Promise.resolve({ completedCampaign: completeIfDone(c, now), pausedCampaign: false });
    }
    move(c, rec, 'queued');
    this.#park(c, n, id, job.row, rec);
    return Promise.resolve({ completedCampaign: false, pausedCampaign: pauseIfRunning(c, `${errorCode}: ${errorDetail}`, now) });
  }

  async isHeld(campaignId: string): Promise<boolean> {
    const c = this.#campaigns.get(campaignId);
    return Promise.resolve(c !== undefined && (c.paused || c.cancelled));
  }

  /**
   * FEED: the atomic cursor. Pops rows off the backlogs of the number's campaigns into its
   * window, high priority first, round-robin within a priority; applies starts, start
   * deadlines and expiry; hands out again jobs fed long ago and not done.
   */
  async feed(phoneNumberId: string, options: FeedOptions): Promise<FeedResult> {
    const now = options.now ?? this.#now();
    const n = this.#number(phoneNumberId);
    const again = rangeByScore(n.window, now - options.refreshAfterMs, options.refreshMost);
    for (const jobId of again) n.window.set(jobId, now);
    const refresh = again.map(parseSendJobId).filter((job): job is SendJob => job !== undefined);
    let room = options.windowSize - n.window.size;
    const jobs: SendJob[] = [];
    const events: FeedEvent[] = [];
    if (room < options.minBatch) return Promise.resolve({ jobs, refresh, events });
    // As the feed script: under a messaging limit, each row's recipient is checked as it is popped.
    const limit = options.messagingLimit ?? 0;
    const reach = limit > 0 ? new MessagingReach(n.reach, limit, now) : undefined;
    const windowOpen = (waId: string) => (n.serviceWindows.get(waId) ?? 0) > now;

    // The active set in ZRANGE order (score, then ID), grouped by score.
    const classes = new Map<number, string[]>();
    for (const id of sortedMembers(n.active)) {
      const score = n.active.get(id) ?? 1;
      const members = classes.get(score) ?? [];
      members.push(id);
      classes.set(score, members);
    }
    for (const score of [...classes.keys()].sort((a, b) => a - b)) {
      if (room <= 0) break;
      const eligible: { id: string; c: CampaignRecord; lists: string[][]; rows: [string, string][]; held?: boolean }[] = [];
      for (const id of classes.get(score) ?? []) {
        const c = this.#campaigns.get(id);
        if (c?.definition === undefined || c.cancelled) {
          n.active.delete(id);
        } else if (c.expiresAt !== undefined && now >= c.expiresAt) {
          // Expired: what was not fed never will be. (Even while paused.)
          c.expired = true;
          const ended = endBacklog(c, 'expired');
          n.active.delete(id);
          if (ended > 0) events.push({ kind: 'expired', campaignId: id, rows: ended });
          if (completeIfDone(c, now)) events.push({ kind: 'completed', campaignId: id });
        } else if (c.startedAt === undefined && c.startDeadline !== undefined && now > c.startDeadline) {
          // Not started by its deadline (no worker ran, or it stayed paused): cancelled with
          // that reason. As a cancel does, it ends an interrupted ingest (it will not be continued).
          c.cancelled = true;
          c.cancelReason = `START_DEADLINE: not started by ${c.startDeadline}`;
          clearPause(c);
          if (c.ingestInterrupted !== undefined) {
            c.ingestDone = true;
            delete c.ingestInterrupted;
          }
          const ended = endBacklog(c, 'cancelled');
          n.active.delete(id);
          events.push({ kind: 'deadline', campaignId: id, rows: ended });
          if (completeIfDone(c, now)) events.push({ kind: 'completed', campaignId: id });
        } else if (c.startsAt !== undefined && now < c.startsAt) {
          // Scheduled: nothing is fed before its start; it stays in the active set.
        } else if (!c.paused) {
          // The lists it may feed from now: its backlog, and with a send window its open
          // lanes; rows of closed lanes wait, taking no room.
          const lists: string[][] = [];
          let waiting = 0;
          if (c.pending.length > 0) lists.push(c.pending);
          if (c.window) {
            const open = new Set((options.openLanes?.get(id) ?? []).map(String));
            for (let lane = 0; lane < c.lanes.size; lane++) {
              const list = c.lanePending.get(lane);
              if (list === undefined || list.length === 0) continue;
              if (open.has(String(lane))) lists.push(list);
              else waiting += list.length;
            }
          }
          if (lists.length > 0) eligible.push({ id, c, lists, rows: [] });
          // Nothing left to feed; a park, retry or reopened row puts it back.
          else if (waiting === 0 && c.ingestDone) n.active.delete(id);
        }
      }
      const taken = [...eligible];
      // As in Redis: where the round starts moves with the clock, so the room's remainder
      // (room not a multiple of the campaigns) falls on a different campaign each feed. It is
      // computed once per class, from the first count of eligible campaigns.
      const turn = floorMod(now, Math.max(1, eligible.length));
      let round = eligible;
      while (room > 0 && round.length > 0) {
        const count = round.length;
        const share = Math.floor(room / count);
        const extra = room % count;
        const still: typeof round = [];
        for (let j = 0; j < count; j++) {
          const e = round[(turn + j) % count];
          if (e === undefined) continue;
          const want = share + (j < extra ? 1 : 0);
          if (want > 0) {
            // A row with no record (the script finds none) is fed without being counted, as in Redis.
            const mayFeed =
              reach === undefined
                ? undefined
                : (entry: string) => {
                    const phone = e.c.rows.get(Number(/^\d+/.exec(entry)?.[0]))?.p;
                    return phone === undefined || reach.mayFeed(phone, windowOpen);
                  };
            const got = popRows(e, want, mayFeed);
            if (got.length > 0) {
              for (const entry of got) {
                const match = /^(\d+):?(\d*)$/.exec(entry);
                if (match === null) continue;
                const row = match[1] ?? '';
                const k = match[2] === '' || match[2] === undefined ? '0' : match[2];
                n.window.set(`${e.id}-${row}${k === '0' ? '' : `-r${k}`}`, now);
                e.rows.push([row, k]);
              }
              // As in Redis, an entry that is not a row still used its room.
              room -= got.length;
              if (got.length === want && e.held !== true) still.push(e);
            }
          } else {
            still.push(e);
          }
        }
        // Everyone still eligible got a full share: the room is used up.
        if (still.length === count) break;
        round = still;
      }
      for (const e of taken) {
        if (e.c.startedAt === undefined && e.rows.length > 0) {
          e.c.startedAt = now;
          events.push({ kind: 'started', campaignId: e.id, startsAt: e.c.startsAt, at: now });
        }
      }
      // Rows of one class interleaved, one of each campaign in turn (in the active set's
      // order, not the round's): the queue runs them in this order.
      for (let i = 0, more = true; more; i++) {
        more = false;
        for (const e of taken) {
          const fed = e.rows[i];
          if (fed === undefined) continue;
          const job: SendJob = { campaignId: e.id, row: Number(fed[0]) };
          if (Number(fed[1]) > 0) job.requeue = Number(fed[1]);
          jobs.push(job);
          more = true;
        }
      }
    }
    const limitHeld = reach?.held();
    return Promise.resolve(limitHeld === undefined ? { jobs, refresh, events } : { jobs, refresh, events, limitHeld });
  }

  /** The number's campaigns in its active set (ZRANGE order) that have a send window, with their lanes. */
  async windowedCampaigns(phoneNumberId: string): Promise<WindowedCampaigns> {
    const now = this.#now();
    const campaigns: WindowedCampaigns['campaigns'] = [];
    for (const campaignId of sortedMembers(this.#numbers.get(phoneNumberId)?.active ?? new Map<string, number>())) {
      const c = this.#campaigns.get(campaignId);
      if (c?.window !== true || c.definition === undefined) continue;
      const window = campaignDefinitionSchema.parse(JSON.parse(c.definition)).window;
      if (window !== undefined) campaigns.push({ campaignId, window, lanes: lanesOf(c.lanes) });
    }
    return Promise.resolve({ now, campaigns });
  }

  /** As apply-statuses.lua: by message ID, else by callback data; the first time of each kind counts. */
  applyStatuses(updates: readonly StatusUpdate[]): Promise<StatusOutcome[]> {
    const now = this.#now();
    const answerable = new Set<RowStatus>(['sending', 'confirming', 'unknown', 'queued']);
    return Promise.resolve(
      updates.map((u): StatusOutcome => {
        const where = this.#wamids.get(u.wamid) ?? (u.callbackData !== undefined && u.callbackData !== '' ? u.callbackData : undefined);
        const match = where === undefined ? null : /^(.+)\/(\d+)$/.exec(where);
        const c = match === null ? undefined : this.#campaigns.get(match[1] ?? '');
        const row = Number(match?.[2]);
        const rec = c?.rows.get(row);
        if (c === undefined || rec === undefined) return { outcome: 'unmatched', completedCampaign: false };
        if (!answerable.has(rec.s) && rec.s !== 'sent' && rec.s !== 'failed') return { outcome: 'other', completedCampaign: false };
        let changed = false;
        const number = this.#number(u.phoneNumberId);
        if (rec.ct !== undefined && rec.ct > number.statusSeen) number.statusSeen = rec.ct;
        if (answerable.has(rec.s)) {
          if (rec.s === 'confirming') {
            number.confirm.delete(`${match?.[1] ?? ''}/${row}`);
            delete rec.cu;
          }
          move(c, rec, 'sent');
          delete rec.c;
          delete rec.d;
          changed = true;
        }
        if (rec.w === undefined || rec.w === '') {
          rec.w = u.wamid;
          this.#wamids.set(u.wamid, `${match?.[1] ?? ''}/${row}`);
          changed = true;
        }
        if (u.kind === 'delivered' || u.kind === 'read') {
          if (rec.dt === undefined) c.delivered++;
          if (rec.dt === undefined || u.at < rec.dt) {
            rec.dt = u.at;
            changed = true;
          }
        }
        if (u.kind === 'read') {
          if (rec.rt === undefined) c.read++;
          if (rec.rt === undefined || u.at < rec.rt) {
            rec.rt = u.at;
            changed = true;
          }
        }
        if (u.kind === 'failed') {
          const code = u.code ?? '';
          if (rec.ft === undefined || u.at < rec.ft || (u.at === rec.ft && code < (rec.c ?? ''))) {
            rec.ft = u.at;
            rec.c = code;
            rec.d = u.detail ?? '';
            changed = true;
          }
          if (rec.s !== 'failed') {
            move(c, rec, 'failed');
            changed = true;
            forgetSend(this.#number(u.phoneNumberId), rec.f, match?.[1] ?? '', row);
          }
          const optOuts = this.#number(u.phoneNumberId).optOuts;
          if (code === '131050' && !optOuts.has(rec.p)) optOuts.set(rec.p, { campaignId: match?.[1] ?? '', row, at: now });
        }
        if (!changed) return { outcome: 'same', completedCampaign: false };
        return { outcome: 'applied', completedCampaign: completeIfDone(c, now) };
      }),
    );
  }

  /** As apply-inbound.lua. */
  applyInbound(updates: readonly InboundUpdate[]): Promise<{ answeredRow: boolean }[]> {
    const now = this.#now();
    return Promise.resolve(
      updates.map((u) => {
        const n = this.#number(u.phoneNumberId);
        const closes = u.at + SERVICE_WINDOW_MS;
        if (closes > now && closes > (n.serviceWindows.get(u.waId) ?? 0)) n.serviceWindows.set(u.waId, closes);
        const where = u.replyTo === undefined ? undefined : this.#wamids.get(u.replyTo);
        const match = where === undefined ? null : /^(.+)\/(\d+)$/.exec(where);
        const rec = match === null ? undefined : this.#campaigns.get(match[1] ?? '')?.rows.get(Number(match[2]));
        let answeredRow = false;
        if (rec !== undefined && u.reply !== undefined && u.reply !== '') {
          if (rec.qt === undefined || u.at < rec.qt) {
            rec.q = u.reply;
            rec.qt = u.at;
          }
          answeredRow = true;
        }
        const phone = `+${u.waId}`;
        if (u.optOut && !n.optOuts.has(phone)) n.optOuts.set(phone, { campaignId: match?.[1] ?? '', row: Number(match?.[2] ?? 0), at: u.at, via: 'keyword' });
        return { answeredRow };
      }),
    );
  }

  /** As apply-preferences.lua: the newest event per user wins. */
  applyPreferences(updates: readonly PreferenceUpdate[]): Promise<void> {
    for (const u of updates) {
      const n = this.#number(u.phoneNumberId);
      const phone = `+${u.waId}`;
      if (u.at <= (n.preferenceAt.get(phone) ?? -1)) continue;
      n.preferenceAt.set(phone, u.at);
      if (u.value === 'stop') n.optOuts.set(phone, { campaignId: '', row: 0, at: u.at, via: 'user_preferences' });
      else n.optOuts.delete(phone);
    }
    return Promise.resolve();
  }

  serviceWindowOpen(phoneNumberId: string, waId: string): Promise<boolean> {
    return Promise.resolve((this.#number(phoneNumberId).serviceWindows.get(waId.replace(/^\+/, '')) ?? 0) > this.#now());
  }

  serviceWindowsOpen(phoneNumberId: string, waIds: readonly string[]): Promise<boolean[]> {
    const windows = this.#number(phoneNumberId).serviceWindows;
    const now = this.#now();
    return Promise.resolve(waIds.map((waId) => (windows.get(waId.replace(/^\+/, '')) ?? 0) > now));
  }

  async windowSize(phoneNumberId: string): Promise<number> {
    return Promise.resolve(this.#numbers.get(phoneNumberId)?.window.size ?? 0);
  }

  addOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    const optOuts = this.#number(phoneNumberId).optOuts;
    if (optOuts.has(phone)) return Promise.resolve(false);
    optOuts.set(phone, { campaignId: '', row: 0, at: this.#now(), via: 'operator' });
    return Promise.resolve(true);
  }

  removeOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    return Promise.resolve(this.#number(phoneNumberId).optOuts.delete(phone));
  }

  async recordOptOut(phoneNumberId: string, phone: string, source: { campaignId: string; row: number }): Promise<void> {
    this.#number(phoneNumberId).optOuts.set(phone, { campaignId: source.campaignId, row: source.row, at: this.#now() });
    return Promise.resolve();
  }

  // ---- controls -----------------------------------------------------------------------

  /** PAUSE. */
  async pause(campaignId: string, reason: string): Promise<PauseResult> {
    const c = this.#campaigns.get(campaignId);
    if (c?.definition === undefined) return Promise.resolve({ outcome: 'missing' });
    if (c.cancelled) return Promise.resolve({ outcome: 'cancelled' });
    if (c.finishedAt !== undefined) return Promise.resolve({ outcome: 'completed' });
    if (c.paused) return Promise.resolve({ outcome: 'already-paused' });
    pauseIfRunning(c, reason, this.#now());
    return Promise.resolve({ outcome: 'paused' });
  }

  /** RESUME. The brake's window starts empty again: old failures must not re-pause at once. */
  async resume(campaignId: string): Promise<ResumeResult> {
    const c = this.#campaigns.get(campaignId);
    if (c?.definition === undefined) return Promise.resolve({ outcome: 'missing' });
    if (c.cancelled) return Promise.resolve({ outcome: 'cancelled' });
    if (!c.paused) return Promise.resolve({ outcome: 'not-paused' });
    liftPause(c);
    return Promise.resolve({ outcome: 'resumed' });
  }

  /** CANCEL: the backlog is cancelled as a block; fed rows are cancelled by their claim. */
  async cancel(campaignId: string): Promise<CancelResult> {
    const c = this.#campaigns.get(campaignId);
    if (c?.definition === undefined) return Promise.resolve({ outcome: 'missing' });
    // As in Redis, a cancelled campaign may be cancelled again (0 more rows), even once finished.
    if (c.finishedAt !== undefined && !c.cancelled) return Promise.resolve({ outcome: 'completed' });
    c.cancelled = true;
    clearPause(c);
    // An interrupted ingest will not be continued: the rows read are all the campaign has.
    if (c.ingestInterrupted !== undefined) {
      c.ingestDone = true;
      delete c.ingestInterrupted;
    }
    const ended = endBacklog(c, 'cancelled');
    this.#numbers.get(this.#phoneNumberOf(c, undefined))?.active.delete(campaignId);
    completeIfDone(c, this.#now());
    return Promise.resolve({ outcome: 'cancelled', cancelled: ended });
  }

  /** MARK_FOR_RETRY: the chosen rows go to the end of the backlog under new job numbers. */
  async markForRetry(campaignId: string, fromRow: number, toRow: number, selection: RetrySelection): Promise<RetryPage> {
    const c = this.#campaigns.get(campaignId);
    const number = this.#phoneNumberOf(c, undefined);
    // Checked here, not only by the caller: a cancel may land between its check and this page.
    if (c?.cancelled === true) return Promise.resolve({ requeued: 0, noPayload: 0, held: 0, heldUntil: 0 });
    // As RedisLedger: an empty range looks at nothing.
    if (fromRow > toRow) return Promise.resolve({ requeued: 0, noPayload: 0, held: 0, heldUntil: 0 });
    const now = this.#now();
    let held = 0;
    let heldUntil = 0;
    // The codes travel comma-joined, as to the script: an empty join means any code.
    const joined = selection.codes.join(',');
    const codes = new Set(joined.split(',').filter((code) => code !== ''));
    const anyCode = joined === '';
    const entries: { list: string[]; entry: string }[] = [];
    let noPayload = 0;
    for (let row = fromRow; row <= toRow; row++) {
      const rec = c?.rows.get(row);
      if (c === undefined || rec === undefined) continue;
      const chosen = (rec.s === 'failed' && selection.failed && (anyCode || codes.has(rec.c ?? ''))) || (rec.s === 'unknown' && selection.unknown);
      if (!chosen) continue;
      // As mark-for-retry.lua: 131049 rows wait 24 h after they failed.
      if (rec.s === 'failed' && rec.c === '131049' && rec.ft !== undefined && now - rec.ft < RETRY_HOLD_131049_MS) {
        held++;
        if (heldUntil === 0 || rec.ft + RETRY_HOLD_131049_MS < heldUntil) heldUntil = rec.ft + RETRY_HOLD_131049_MS;
        continue;
      }
      if (rec.v === undefined) {
        noPayload++;
        continue;
      }
      move(c, rec, 'queued');
      rec.k = (rec.k ?? 0) + 1;
      entries.push({ list: listOf(c, rec), entry: entryOf(row, rec.k) });
    }
    if (c !== undefined && entries.length > 0) {
      for (const { list, entry } of entries) list.push(entry);
      this.#activate(c, this.#number(number), campaignId);
      delete c.finishedAt;
    }
    return Promise.resolve({ requeued: entries.length, noPayload, held, heldUntil });
  }

  /** RESCHEDULE. */
  async reschedule(campaignId: string, startsAt: number): Promise<RescheduleResult> {
    const c = this.#campaigns.get(campaignId);
    if (c?.definition === undefined) return Promise.resolve({ outcome: 'missing' });
    if (c.cancelled) return Promise.resolve({ outcome: 'cancelled' });
    if (c.finishedAt !== undefined) return Promise.resolve({ outcome: 'completed' });
    if (c.startedAt !== undefined) return Promise.resolve({ outcome: 'started' });
    c.startsAt = startsAt;
    return Promise.resolve({ outcome: 'rescheduled' });
  }

  // ---- report -------------------------------------------------------------------------

  async status(campaignId: string): Promise<CampaignStatus | undefined> {
    const c = this.#campaigns.get(campaignId);
    if (c?.definition === undefined) return Promise.resolve(undefined);
    const counts = { total: c.total, delivered: c.delivered, read: c.read } as CampaignCounts;
    for (const status of ROW_STATUSES) counts[status] = c.counts[status];
    const scheduled = c.startsAt !== undefined && c.startedAt === undefined && c.finishedAt === undefined && c.startsAt > this.#now();
    return Promise.resolve({
      id: campaignId,
      priority: c.priority === 0 ? 'high' : c.priority === 2 ? 'low' : 'normal',
      state: c.cancelled ? 'cancelled' : c.paused ? 'paused' : scheduled ? 'scheduled' : !c.ingestDone ? 'ingesting' : c.finishedAt === undefined ? 'running' : 'completed',
      counts,
      createdAt: c.createdAt ?? 0,
      finishedAt: c.finishedAt,
      pausedReason: c.paused ? c.pausedReason : undefined,
      pausedAt: c.paused ? c.pausedAt : undefined,
      ingestInterrupted: c.ingestInterrupted !== undefined,
      // Purging is not a ledger operation (src/redis/ledger-purge.ts works on Redis directly).
      purgedAt: undefined,
      startsAt: c.startsAt,
      startDeadline: c.startDeadline,
      expiresAt: c.expiresAt,
      startedAt: c.startedAt,
      cancelReason: c.cancelReason,
    });
  }

  async *rows(campaignId: string, pageSize = 1000): AsyncIterable<RowRecord[]> {
    const c = this.#campaigns.get(campaignId);
    const total = c?.total ?? 0;
    // Cancel and expiry move the backlog's rows to `cancelled` / `expired` as a block, without
    // rewriting each record; every row still queued in such a campaign is one of them or ends
    // so at its claim. As in Redis, rows are looked up by number 1..total (a row numbered
    // past the count of rows is not reported), a page at a time.
    const endedAs = c?.cancelled === true ? 'cancelled' : c?.expired === true ? 'expired' : undefined;
    for (let start = 1; start <= total; start += pageSize) {
      const page: RowRecord[] = [];
      for (let row = start; row < start + Math.min(pageSize, total - start + 1); row++) {
        const stored = c?.rows.get(row);
        if (stored === undefined) continue;
        const record = toRecord(row, stored);
        if (endedAs !== undefined && record.status === 'queued') record.status = endedAs;
        page.push(record);
      }
      yield await Promise.resolve(page);
    }
  }

  async listCampaigns(): Promise<string[]> {
    return Promise.resolve(sortedMembers(this.#listed));
  }

  async phoneNumbers(): Promise<string[]> {
    const numbers = new Set<string>();
    for (const c of this.#campaigns.values()) {
      if (c.definition !== undefined) numbers.add((JSON.parse(c.definition) as CampaignDefinition).phoneNumberId);
    }
    return Promise.resolve([...numbers].sort());
  }

  async laneBacklogs(campaignId: string): Promise<LaneBacklog[]> {
    const c = this.#campaigns.get(campaignId);
    return Promise.resolve(lanesOf(c?.lanes).map((zones, lane) => ({ lane, zones, pending: c?.lanePending.get(lane)?.length ?? 0 })));
  }

  // ---- for tests ----------------------------------------------------------------------

  /** The campaign's backlog (not its lanes'), front first: "row" (its first job) or "row:k". */
  backlog(campaignId: string): string[] {
    return [...(this.#campaigns.get(campaignId)?.pending ?? [])];
  }

  /** The IDs of the jobs fed to the number and not done, sorted. */
  windowJobIds(phoneNumberId: string): string[] {
    return [...(this.#numbers.get(phoneNumberId)?.window.keys() ?? [])].sort();
  }

  /** Which campaign/row a sent message ID belongs to ("campaign/row"), as the wamid index holds it. */
  wamidOwner(wamid: string): string | undefined {
    return this.#wamids.get(wamid);
  }

  // ---- internals ----------------------------------------------------------------------

  /** The campaign's record, created empty on first write (as a Redis hash is). */
  #write(id: string): CampaignRecord {
    let c = this.#campaigns.get(id);
    if (c === undefined) {
      c = {
        total: 0,
        counts: Object.fromEntries(ROW_STATUSES.map((s) => [s, 0])) as Record<RowStatus, number>,
        delivered: 0,
        read: 0,
        window: false,
        paused: false,
        cancelled: false,
        expired: false,
        allowRepeat: false,
        ingestDone: false,
        recent: new Map(),
        rows: new Map(),
        pending: [],
        lanePending: new Map(),
        lanes: new Map(),
      };
      this.#campaigns.set(id, c);
    }
    return c;
  }

  #number(phoneNumberId: string): NumberRecord {
    let n = this.#numbers.get(phoneNumberId);
    if (n === undefined) {
      n = { active: new Map(), window: new Map(), sent: new Map(), sentAt: new Map(), optOuts: new Map(), preferenceAt: new Map(), serviceWindows: new Map(), confirm: new Map(), statusSeen: 0, reach: new Map() };
      this.#numbers.set(phoneNumberId, n);
    }
    return n;
  }

  /** The campaign's phone number: given by the caller, else read from its definition ('' when it has none). */
  #phoneNumberOf(c: CampaignRecord | undefined, given: string | undefined): string {
    if (given !== undefined && given !== '') return given;
    if (c?.definition === undefined) return '';
    return (JSON.parse(c.definition) as { phoneNumberId?: string }).phoneNumberId ?? '';
  }

  /** The campaign joins its number's active set, at its priority (1 when the record has none). */
  #activate(c: CampaignRecord, n: NumberRecord, campaignId: string): void {
    n.active.set(campaignId, c.priority ?? 1);
  }

  /** Parks a row for the next resume: a new job number, and back to the front of the backlog. */
  #park(c: CampaignRecord, n: NumberRecord, campaignId: string, row: number, rec: StoredRow): void {
    rec.k = (rec.k ?? 0) + 1;
    listOf(c, rec).unshift(entryOf(row, rec.k));
    this.#activate(c, n, campaignId);
  }

  /**
   * The error-spike brake: a ring of `window` bits, this send's replacing the one from
   * `window` sends ago; more than share × window failures pause the campaign. Only sent and
   * failed answers count (an abandoned waiting row has become `failed` by now, so it counts).
   */
  #applyBrake(c: CampaignRecord, status: RowStatus, code: string, detail: string, now: number): boolean {
    const { window, failureShare } = this.#brake;
    if (window <= 0 || (status !== 'sent' && status !== 'failed')) return false;
    const bit = status === 'failed' ? 1 : 0;
    const pos = (c.recentSends = (c.recentSends ?? 0) + 1);
    const at = (pos - 1) % window;
    const old = c.recent.get(at) ?? 0;
    c.recent.set(at, bit);
    let fails = 0;
    if (bit !== old) fails = c.recentFails = (c.recentFails ?? 0) + bit - old;
    else if (bit === 1) fails = c.recentFails ?? 0;
    if (bit === 1 && fails > window * failureShare) {
      return pauseIfRunning(c, `ERROR_SPIKE: ${fails} of the last ${window} sends failed permanently (latest ${code}: ${detail})`, now);
    }
    return false;
  }
}

function settled(status: RowStatus, completed: boolean): ClaimResult {
  return completed ? { outcome: 'settled', status, completedCampaign: true } : { outcome: 'settled', status };
}

/** A backlog entry: "row" for its first job, "row:k" for its job number k. */
function entryOf(row: number, k: number | undefined): string {
  return (k ?? 0) === 0 ? String(row) : `${row}:${k}`;
}

/** The job ID of a row's job number k, as sendJobId and the scripts' jobIdOf make it. */
function jobIdOf(campaignId: string, row: number, k: number): string {
  return k === 0 ? `${campaignId}-${row}` : `${campaignId}-${row}-r${k}`;
}

/** Moves a row between statuses, keeping the counters in step. */
function move(c: CampaignRecord, rec: StoredRow, status: RowStatus): void {
  c.counts[rec.s]--;
  c.counts[status]++;
  rec.s = status;
}

/** A campaign is complete when ingest is done and every row has a final status. */
function completeIfDone(c: CampaignRecord, now: number): boolean {
  if (!c.ingestDone || c.finishedAt !== undefined) return false;
  let answered = 0;
  for (const status of ANSWERED) answered += c.counts[status];
  if (answered < c.total) return false;
  c.finishedAt = now;
  // Every row has its answer: a pause (say, the brake tripping on the last row) has nothing left to hold.
  clearPause(c);
  return true;
}

function pauseIfRunning(c: CampaignRecord, reason: string, now: number): boolean {
  if (c.paused || c.cancelled) return false;
  c.paused = true;
  c.pausedReason = reason;
  c.pausedAt = now;
  return true;
}

function clearPause(c: CampaignRecord): void {
  c.paused = false;
  delete c.pausedReason;
  delete c.pausedAt;
}

/** A lifted pause (resume, a continued ingest): the brake's window starts empty too. */
function liftPause(c: CampaignRecord): void {
  clearPause(c);
  delete c.recentFails;
  delete c.recentSends;
  c.recent.clear();
}

/**
 * Ends a campaign's backlog as a block: its rows' counts move from queued to `status` and the
 * backlog goes, with the lists of its lanes; their records still say queued, which rows()
 * reports as `status`. As in Redis, the lanes are those numbered 0 … (lanes recorded − 1).
 */
function endBacklog(c: CampaignRecord, status: 'cancelled' | 'expired'): number {
  const lists = [c.pending];
  for (let lane = 0; lane < c.lanes.size; lane++) {
    const list = c.lanePending.get(lane);
    if (list !== undefined) lists.push(list);
  }
  const unfed = lists.reduce((sum, list) => sum + list.length, 0);
  if (unfed > 0) {
    c.counts.queued -= unfed;
    c.counts[status] += unfed;
    for (const list of lists) list.length = 0;
  }
  return unfed;
}

/** The list a row's entries go to: its lane's (`pending:<z>`) when it has one, else the backlog. */
function listOf(c: CampaignRecord, rec: StoredRow): string[] {
  if (rec.z === undefined) return c.pending;
  let list = c.lanePending.get(rec.z);
  if (list === undefined) {
    list = [];
    c.lanePending.set(rec.z, list);
  }
  return list;
}

/**
 * Pops up to `want` entries off a campaign's lists (its backlog and its open lanes), shared
 * evenly between them; a list found short is dropped, so no lists left means exhausted.
 */
function popRows(e: { lists: string[][]; held?: boolean }, want: number, mayFeed?: (entry: string) => boolean): string[] {
  const got: string[] = [];
  while (want > 0 && e.lists.length > 0 && e.held !== true) {
    const share = Math.max(1, Math.floor(want / e.lists.length));
    const still: string[][] = [];
    for (const list of e.lists) {
      const ask = Math.min(share, want);
      if (ask > 0) {
        // LPOP with a count: nothing (nil) once the list is empty.
        const part = list.length === 0 ? undefined : list.splice(0, ask);
        if (part !== undefined) {
          // Under the messaging limit a recipient with no place goes back to the front, in order, and the campaign waits.
          const back: string[] = [];
          for (const entry of part) {
            if (mayFeed === undefined || mayFeed(entry)) {
              got.push(entry);
              want--;
            } else {
              back.push(entry);
            }
          }
          if (back.length > 0) {
            list.unshift(...back);
            e.held = true;
          }
          if (part.length === ask) still.push(list);
        }
      } else {
        still.push(list);
      }
    }
    e.lists = still;
  }
  return got;
}

/**
 * The guard's entry for fingerprint `f` that another row recorded less than `window` ms
 * before `now`, as a sentence for the row's detail; undefined when there is none.
 */
function priorSend(n: NumberRecord, f: string, campaignId: string, row: number, now: number, window: number): string | undefined {
  if (window <= 0 || f === '') return undefined;
  const entry = n.sent.get(f);
  if (entry === undefined) return undefined;
  // Greedy, as the script's '^(.*)/(%d+)/(%d+)$': a campaign ID may hold slashes.
  const match = /^(.*)\/(\d+)\/(\d+)$/s.exec(entry);
  if (match === null) return undefined;
  const [, cid = '', r = '', at = ''] = match;
  if (cid === campaignId && r === String(row)) return undefined;
  const age = now - Number(at);
  if (age >= window) return undefined;
  return (
    `campaign ${cid} row ${r} sent the same message (template, language, values) to this recipient from this number ` +
    `${formatOneDecimal(age / 3_600_000)} h ago, within DUPLICATE_WINDOW_HOURS; not sent again (--allow-repeat sends it anyway)`
  );
}

/** Forgets the guard's entry for a row whose request was refused, if the entry is that row's. */
function forgetSend(n: NumberRecord, f: string | undefined, campaignId: string, row: number): void {
  if (f === undefined) return;
  const entry = n.sent.get(f);
  if (entry !== undefined && entry.startsWith(`${campaignId}/${row}/`)) {
    n.sent.delete(f);
    n.sentAt.delete(f);
  }
}

/**
 * Lua's string.format('%.1f', x): C's printf rounds an exact tie to even (0.25 → "0.2"),
 * where toFixed rounds it up ("0.3"). Ties at one decimal are exactly the odd quarters.
 */
function formatOneDecimal(x: number): string {
  const quarters = x * 4;
  if (Number.isInteger(quarters) && Math.abs(quarters) % 2 === 1) {
    const tenths = Math.floor(x * 10);
    const even = tenths % 2 === 0 ? tenths : tenths + 1;
    return (even / 10).toFixed(1);
  }
  return x.toFixed(1);
}

/** Lua's %: floored, never negative for a positive divisor. */
function floorMod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

/** A sorted set's members in ZRANGE order: by score, then by member. */
function sortedMembers(set: ReadonlyMap<string, number>): string[] {
  return [...set.entries()].sort(([a, sa], [b, sb]) => sa - sb || (a < b ? -1 : a > b ? 1 : 0)).map(([member]) => member);
}

/** ZRANGEBYSCORE -inf max LIMIT 0 most: members scored at most `max`, oldest first; a negative `most` = all, 0 = none. */
function rangeByScore(set: ReadonlyMap<string, number>, max: number, most: number): string[] {
  const members = sortedMembers(set).filter((member) => (set.get(member) ?? Infinity) <= max);
  return most < 0 ? members : members.slice(0, most);
}

/** A lanes hash (index → zones joined by &) as an array by index; a missing index has no zones. */
function lanesOf(hash: ReadonlyMap<number, string> | undefined): string[][] {
  const lanes: string[][] = [];
  for (const [index, zones] of hash ?? []) lanes[index] = zones === '' ? [] : zones.split('&');
  return Array.from(lanes, (zones) => zones ?? []);
}

