import type { Secret } from '../config/secret.js';
import type { Logger } from '../logging/logger.js';
import { retriesExhausted, retryDelayMs } from '../outbound/retry-schedule.js';
import { postDelivery, type DeliveryAnswer } from '../outbound/signed-post.js';
import { BATCH_MAX_EVENTS, batchDue, hookBatchRequest } from './hook-batch.js';
import type { HookOutbox, QueuedHookEvent } from './hook-outbox.js';
import { RepeatingTask } from './repeating-task.js';

export type PostDelivery = (url: string, body: string, headers: Record<string, string>) => Promise<DeliveryAnswer>;

export interface HookDeliveryOptions {
  name: string;
  url: string;
  secret: Secret;
  outbox: HookOutbox;
  /** HOOK_RETRY_HOURS in ms: how long a failing batch is retried before its events are dead. */
  retryMs: number;
  logger: Logger;
  post?: PostDelivery;
  now?: () => number;
  /** How often an empty outbox is looked at again. */
  pollMs?: number;
  /** Whether its connection takes commands now (RepeatingTask): none is tried, or reported, while it does not. */
  ready?: () => boolean;
}

const DEFAULT_POLL_MS = 200;

/**
 * Delivers one hook's outbox, in order: the oldest waiting events as one batch once 100 wait
 * or the oldest has waited a second; on a 2xx they leave the outbox; on a failure the same
 * batch is tried again after the backoff (the hook's later events wait behind it, so a row's
 * events stay in order) until its oldest was queued HOOK_RETRY_HOURS ago, when the batch goes
 * to the dead letters and delivery goes on. Nothing is held in memory: what has not been
 * acknowledged is in the outbox, and whichever replica delivers next sends it.
 */
export class HookDelivery {
  readonly #options: HookDeliveryOptions;
  readonly #post: PostDelivery;
  readonly #now: () => number;
  readonly #task: RepeatingTask;
  /** Failed attempts in a row of the batch at the head of the outbox. */
  #failures = 0;

  constructor(options: HookDeliveryOptions) {
    this.#options = options;
    this.#post = options.post ?? postDelivery;
    this.#now = options.now ?? Date.now;
    this.#task = new RepeatingTask(
      () => this.step(),
      (error) => options.logger.warn({ err: error, hook: options.name }, 'hook delivery failed to read its outbox'),
      undefined,
      options.ready,
    );
  }

  start(): void {
    this.#task.start();
  }

  stop(boundMs?: number): Promise<void> {
    return this.#task.stop(boundMs);
  }

  /** One look at the outbox: sends a batch when one is due. Answers how long to wait before the next look (ms). */
  async step(): Promise<number> {
    const { outbox, name } = this.#options;
    const pollMs = this.#options.pollMs ?? DEFAULT_POLL_MS;
    const waiting = await outbox.oldest(BATCH_MAX_EVENTS);
    if (waiting.length === 0) return pollMs;
    const due = batchDue(
      waiting.map((queued) => ({ queuedAt: queued.queuedAt, occurredAt: occurredMs(queued) })),
      this.#now(),
    );
    if (!due.due) return Math.min(due.dueInMs, pollMs);
    const entryIds = waiting.map((queued) => queued.entryId);
    const events = waiting.flatMap((queued) => (queued.event === undefined ? [] : [queued.event]));
    if (events.length === 0) {
      await outbox.acknowledge(entryIds, 0);
      return 0;
    }
    const request = hookBatchRequest(name, events, this.#options.secret.reveal(), this.#now());
    const answer = await this.#post(this.#options.url, request.body, request.headers);
    if (answer.ok) {
      if (this.#failures > 0) this.#options.logger.info({ hook: name, failures: this.#failures }, 'hook receiver answers again');
      this.#failures = 0;
      await outbox.acknowledge(entryIds, (this.#now() - Math.min(...waiting.map(occurredMs))) / 1000);
      return 0;
    }
    return this.#failed(waiting, answer.reason);
  }

  async #failed(waiting: readonly QueuedHookEvent[], reason: string): Promise<number> {
    const { outbox, name, logger, retryMs } = this.#options;
    this.#failures += 1;
    const oldestQueued = Math.min(...waiting.map((queued) => queued.queuedAt));
    if (retriesExhausted(oldestQueued, this.#now(), retryMs)) {
      const moved = await outbox.bury(
        waiting.map((queued) => queued.entryId),
        this.#now(),
        reason,
      );
      logger.warn(
        { hook: name, events: moved, reason, failures: this.#failures },
        'hook batch retried too long: moved to the dead letters',
      );
      this.#failures = 0;
      return 0;
    }
    await outbox.countRetried(waiting.length);
    const delayMs = retryDelayMs(this.#failures);
    // Once per streak, then every tenth: a receiver down for hours must not flood the log.
    if (this.#failures === 1 || this.#failures % 10 === 0)
      logger.warn({ hook: name, events: waiting.length, reason, failures: this.#failures, retryInMs: delayMs }, 'hook delivery failed');
    return delayMs;
  }
}

/** When the event happened (ms), or when it was queued if that is earlier or it cannot be read. */
function occurredMs(queued: QueuedHookEvent): number {
  const at = queued.event === undefined ? NaN : Date.parse(queued.event.occurred_at);
  return Number.isFinite(at) ? Math.min(at, queued.queuedAt) : queued.queuedAt;
}
