import type { CampaignLedger, FeedEvent } from '../ledger.js';
import { groupSizeFor, type QueuedSend, type SendJobQueue } from '../send-job.js';
import { openLanes } from './send-window.js';
import type { Logger } from '../../logging/logger.js';
import type { MessagingLimit } from '../../config/number-settings.js';
import { DEFAULT_PORTFOLIO } from '../../portfolios/portfolios.js';

/** How often a worker looks whether its number's window has room (and whether a campaign became feedable). */
const FEED_EVERY_MS = 250;
/** A job fed this long ago and still not done is enqueued again, in case a crash lost its enqueue. */
const REFRESH_AFTER_MS = 30_000;
const REFRESH_MOST = 500;
/**
 * Rows one call of the ledger's feed script pops for a paced number; a bigger room takes several
 * calls. Redis runs nothing else during a script, and every worker's pacer waits behind it:
 * 1,250 rows at once (a quarter of the window at 1,000/s) held Redis about 8 ms, and the sends
 * queued behind it left together. 200 rows take about 1.5 ms. Unpaced (SEND_RATE=0) a feed is
 * one call: there the worker waits for the feed's round trips, and splitting it cost an unpaced
 * drain about a sixth of its speed (0.52× the bare worker against 0.62× in the same hour).
 */
export const FEED_ROWS_PER_CALL = 200;
/** Errors are logged at most this often: Redis away would otherwise log four lines a second. */
const ERROR_LOG_EVERY_MS = 10_000;
/** A scheduled campaign whose first feed comes this much after its start is logged as late (no worker ran at its start). */
const LATE_START_MS = 60_000;

/**
 * Jobs a phone number keeps in BullMQ: five seconds of sending at its rate (at least 200, so
 * slow numbers still have work queued ahead of their workers); 2,000 when the rate is off.
 * Not more: after a pause, each job already fed takes a turn of BullMQ's rate limiter to
 * park, so the window is also how long a pause holds up the number's other campaigns
 * (5 s, not 2,000 jobs = 25 s at 80 msg/s).
 */
export function feedWindowSize(messagesPerSecond: number): number {
  return messagesPerSecond > 0 ? Math.max(200, Math.ceil(5 * messagesPerSecond)) : 2000;
}

export interface SendFeederOptions {
  ledger: Pick<CampaignLedger, 'feed' | 'windowedCampaigns' | 'windowSize'>;
  queue: SendJobQueue;
  phoneNumberId: string;
  /** The number's SEND_RATE (0 = unlimited): sizes the window. */
  messagesPerSecond: number;
  logger: Logger;
  /** Overrides feedWindowSize (tests). */
  windowSize?: number;
  /** Overrides groupSizeFor the rate: most rows a job carries (1: a job a row). */
  groupSize?: number;
  /** A feed completed a campaign (its expiry or start deadline answered its last rows). */
  onCampaignCompleted?: (campaignId: string) => void;
  /** The number's business portfolio (absent: `default`): Meta's messaging limit is shared by all its numbers. */
  portfolio?: string;
  /** MESSAGING_LIMITS' limit of the portfolio; absent: the one stored for it (read by the feed each round). */
  messagingLimit?: MessagingLimit;
  /** Nothing is fed before this settles (the messaging limit's first read). */
  ready?: Promise<unknown>;
}

/** While the messaging limit holds recipients back, this is logged at most this often. */
const LIMIT_LOG_EVERY_MS = 10 * 60_000;

/**
 * Keeps a phone number's BullMQ queue topped up from its campaigns' backlogs in the ledger.
 * Every worker of the number runs one; the ledger's feed script is the atomic cursor, so
 * several feeders never feed a row twice, and a feeder that dies between the script and the
 * enqueue loses nothing (the ledger hands those jobs out again after REFRESH_AFTER_MS).
 */
export class SendFeeder {
  readonly #options: SendFeederOptions;
  readonly #windowSize: number;
  readonly #minBatch: number;
  /** A pacer spaces this number's sends: its feeds go in calls of FEED_ROWS_PER_CALL. */
  readonly #paced: boolean;
  /** Rows of the jobs this worker finished since its last feed: a feed's worth of room starts one at once. */
  #doneSinceFeed = 0;
  /** Rows a job carries at most (groupSizeFor the rate). */
  readonly #groupSize: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  /** Set by stop(): a job that completes while the worker closes must not start a feed nobody waits for. */
  #stopped = false;
  #lastErrorLog = 0;
  #lastLimitLog = Number.NEGATIVE_INFINITY;
  /** Jobs fed whose enqueue failed: enqueued first at the next feed (see #enqueue). */
  #unqueued: QueuedSend[] = [];
  /** Feeds since this feeder started or its number was idle: a paced window opens a second of sending a feed (see #openWindow). */
  #feeds = 0;

  constructor(options: SendFeederOptions) {
    this.#options = options;
    this.#windowSize = options.windowSize ?? feedWindowSize(options.messagesPerSecond);
    // Fewer, larger feeds: wait until a quarter of the window has drained.
    this.#minBatch = Math.max(1, Math.floor(this.#windowSize / 4));
    this.#paced = options.messagesPerSecond > 0;
    this.#groupSize = options.groupSize ?? groupSizeFor(options.messagesPerSecond);
  }

  /**
   * A job of this worker is done (`rows`: the rows it carried). Once a feed's worth of room is
   * free the feeder tops up at once instead of at its next tick: at an unlimited rate a worker
   * empties a quarter of the window in well under a tick, and would otherwise wait for work.
   */
  jobDone(rows = 1): void {
    this.#doneSinceFeed += rows;
    if (this.#doneSinceFeed < this.#minBatch) return;
    this.#doneSinceFeed = 0;
    void this.nudge();
  }

  get windowSize(): number {
    return this.#windowSize;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#stopped = false;
    void this.nudge();
    this.#timer = setInterval(() => void this.nudge(), FEED_EVERY_MS);
  }

  /** One feed now, unless one is already running (then that one is the answer) or the feeder is stopped. Never rejects. */
  nudge(): Promise<void> {
    if (this.#stopped) return this.#running ?? Promise.resolve();
    this.#running ??= this.feedOnce().then(
      () => {
        this.#running = undefined;
      },
      (error: unknown) => {
        this.#running = undefined;
        const now = Date.now();
        if (now - this.#lastErrorLog >= ERROR_LOG_EVERY_MS) {
          this.#lastErrorLog = now;
          this.#options.logger.error(
            { err: error, phoneNumberId: this.#options.phoneNumberId },
            'could not feed the send queue (retrying)',
          );
        }
      },
    );
    return this.#running;
  }

  /** Tops the window up (in calls of FEED_ROWS_PER_CALL rows); returns how many new jobs it enqueued. */
  async feedOnce(): Promise<number> {
    await this.#enqueueUnqueued();
    const window = this.#openWindow(++this.#feeds);
    // While the window opens, the part a feed opens is worth a feed on its own.
    const opened = window - this.#openWindow(this.#feeds - 1);
    let last = await this.#feedCall(window, opened > 0 ? Math.min(this.#minBatch, opened) : this.#minBatch);
    let fed = last;
    // A full call may have left room: the rest of it, now that a feed has started (at most a window's worth).
    for (let calls = 1; this.#paced && last === FEED_ROWS_PER_CALL && calls * FEED_ROWS_PER_CALL < window; calls++) {
      last = await this.#feedCall(window, 1);
      fed += last;
    }
    // Nothing fed into an empty window: the number is idle. Its next campaign's sending starts
    // as a starting worker's does, so its window opens a second a feed again.
    if (this.#paced && fed === 0 && (await this.#options.ledger.windowSize(this.#options.phoneNumberId)) === 0) this.#feeds = 0;
    return fed;
  }

  /**
   * The window the `feed`-th feed fills (counted from the worker's start, or from when its number
   * was last idle). A paced number's opens one second of sending (the rate, at least
   * FEED_ROWS_PER_CALL) a feed, up to the whole window. A BullMQ worker that starts, or finds
   * jobs again after none, fetches them one at a time until it holds its concurrency, and runs
   * none before that; a first feed of the whole window (5,000 jobs at 1,000/s) kept those
   * fetches waiting behind its enqueues, on this process's event loop and in Redis, and the
   * worker's sends began 0.7–1.1 s after its first one instead of 0.3–0.5 s
   * (measured by the rate sweep: git's history of docs/performance.md).
   */
  #openWindow(feed: number): number {
    if (feed <= 0) return 0;
    if (!this.#paced) return this.#windowSize;
    return Math.min(this.#windowSize, Math.max(FEED_ROWS_PER_CALL, Math.ceil(this.#options.messagesPerSecond * feed)));
  }

  /**
   * The ledger has recorded these jobs as fed: if BullMQ does not get them (a connection
   * closed mid-write, as in a failover: ioredis aborts a MULTI instead of sending it again),
   * they fill the window without running, and the ledger would hand them out again only after
   * REFRESH_AFTER_MS. They are kept and enqueued first at the next feed instead; their IDs are
   * fixed, so a chunk BullMQ already holds is ignored.
   */
  async #enqueue(jobs: readonly QueuedSend[]): Promise<void> {
    try {
      await this.#options.queue.enqueue(jobs);
    } catch (error) {
      this.#unqueued.push(...jobs);
      throw error;
    }
  }

  async #enqueueUnqueued(): Promise<void> {
    if (this.#unqueued.length === 0) return;
    const jobs = this.#unqueued;
    this.#unqueued = [];
    await this.#enqueue(jobs);
  }

  /** One call of the ledger's feed script, filling `window` once `minBatch` of it is free; returns how many new jobs it enqueued. */
  async #feedCall(window: number, minBatch: number): Promise<number> {
    const { ledger, queue, phoneNumberId } = this.#options;
    // Campaigns with a send window feed only the lanes whose recipients' local time is inside it, by the ledger's clock.
    const windowed = await ledger.windowedCampaigns(phoneNumberId);
    const lanes = new Map(windowed.campaigns.map((c) => [c.campaignId, openLanes(c.window, c.lanes, windowed.now)] as const));
    await this.#options.ready;
    const { portfolio, messagingLimit } = this.#options;
    const { jobs, groups, refresh, events, limitHeld } = await ledger.feed(phoneNumberId, {
      openLanes: lanes,
      windowSize: window,
      minBatch,
      groupSize: this.#groupSize,
      ...(this.#paced ? { mostRows: FEED_ROWS_PER_CALL } : {}),
      refreshAfterMs: REFRESH_AFTER_MS,
      refreshMost: REFRESH_MOST,
      ...(portfolio === undefined ? {} : { portfolio }),
      ...(messagingLimit === undefined ? {} : { messagingLimit }),
    });
    await this.#enqueue(groups ?? jobs);
    if (limitHeld !== undefined && Date.now() - this.#lastLimitLog >= LIMIT_LOG_EVERY_MS) {
      this.#lastLimitLog = Date.now();
      this.#options.logger.warn(
        {
          phoneNumberId,
          portfolio,
          messagingLimit: limitHeld.limit,
          reached: limitHeld.reached,
          freesAt: new Date(limitHeld.freesAt).toISOString(),
        },
        `messaging limit reached: ${limitHeld.reached} unique users in the last 24 h ` +
          `(limit ${limitHeld.limit}, portfolio ${portfolio ?? DEFAULT_PORTFOLIO}); ` +
          `new recipients wait, the first place frees at ${new Date(limitHeld.freesAt).toISOString()}`,
      );
    } else if (limitHeld === undefined && jobs.length > 0) {
      // Rows went out with none held: the next hold is news again (a full window feeds nothing and says nothing).
      this.#lastLimitLog = Number.NEGATIVE_INFINITY;
    }
    for (const event of events) this.#log(event);
    if (refresh.length > 0) {
      await queue.enqueue(refresh);
      this.#options.logger.debug({ phoneNumberId, jobs: refresh.length }, 'jobs fed long ago enqueued again (BullMQ ignores those it has)');
    }
    return jobs.length;
  }

  #log(event: FeedEvent): void {
    const { logger, phoneNumberId } = this.#options;
    const { campaignId } = event;
    switch (event.kind) {
      case 'started': {
        const late = event.startsAt === undefined ? 0 : event.at - event.startsAt;
        if (late >= LATE_START_MS) {
          logger.warn(
            { phoneNumberId, campaignId, startsAt: new Date(event.startsAt ?? 0).toISOString(), lateSeconds: Math.round(late / 1000) },
            `campaign ${campaignId} starts now, ${Math.round(late / 60_000)} min after its ` +
              `start time (no worker was feeding its number then)`,
          );
        } else {
          logger.info({ phoneNumberId, campaignId }, `campaign ${campaignId}: first rows fed to the queue`);
        }
        return;
      }
      case 'expired':
        logger.info(
          { phoneNumberId, campaignId, rows: event.rows },
          `campaign ${campaignId} expired: ${event.rows} rows not sent became expired`,
        );
        return;
      case 'deadline':
        logger.warn(
          { phoneNumberId, campaignId, rows: event.rows },
          `campaign ${campaignId} cancelled: not started by its --start-deadline (${event.rows} rows cancelled)`,
        );
        return;
      case 'completed':
        if (this.#options.onCampaignCompleted !== undefined) this.#options.onCampaignCompleted(campaignId);
        else logger.info({ campaignId }, 'campaign completed');
        return;
    }
  }

  /** Stops feeding; waits for a feed in progress, so its jobs are enqueued before the connection closes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
