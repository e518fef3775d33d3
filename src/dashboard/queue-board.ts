import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { Queue } from 'bullmq';
import type { FastifyPluginCallback } from 'fastify';
import type { RedisClient } from '../redis/key-scope.js';
import { sendQueueName } from '../queue/queue-names.js';
import { openSendQueue } from '../queue/open-send-queue.js';

/** Where bull-board is served. */
export const QUEUES_PATH = '/queues';

/** New phone numbers are looked for at most this often (each bull-board poll asks). */
export const QUEUE_DISCOVERY_INTERVAL_MS = 1000;

export interface QueueBoardOptions {
  redis: RedisClient;
  /** QUEUE_PREFIX: BullMQ's key prefix, as the workers use it. */
  prefix: string;
  /** Every phone number that has a campaign (src/dashboard/campaign-directory.ts). */
  numbers: () => Promise<string[]>;
  now?: () => number;
}

/**
 * bull-board at /queues: the BullMQ send queue of every phone number that has a campaign
 * (`send-<phone-number-id>`, src/queue/queue-names.ts), under QUEUE_PREFIX. A number that gets
 * its first campaign while the service runs is added at the next look (`refresh`, before each
 * request to /queues, at most once a second).
 *
 * Read-only: the queues hold only the feeder's window of jobs; the ledger decides what is
 * sent. Pausing, emptying or retrying a queue behind the ledger's back would not pause or
 * cancel a campaign (the feeder would refill it) and could send a row twice, so those are the
 * campaign's controls on the campaigns page (or the CLI), and bull-board is for looking.
 */
export class QueueBoard {
  readonly #options: QueueBoardOptions;
  readonly #now: () => number;
  readonly #adapter = new FastifyAdapter();
  readonly #board: ReturnType<typeof createBullBoard>;
  readonly #queues = new Map<string, Queue>();
  #lastLook = Number.NEGATIVE_INFINITY;
  #looking: Promise<void> | undefined;

  constructor(options: QueueBoardOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#adapter.setBasePath(QUEUES_PATH);
    this.#board = createBullBoard({
      queues: [],
      serverAdapter: this.#adapter,
      options: { uiConfig: { boardTitle: 'campaign-worker queues', miscLinks: [{ text: 'Campaigns', url: '/' }], hideDocsLink: true } },
    });
  }

  /** bull-board's routes (UI, its static files, its API), for `register(…, { prefix: QUEUES_PATH })`. */
  plugin(): FastifyPluginCallback {
    return this.#adapter.registerPlugin();
  }

  /** The numbers' queues shown now. */
  queueNames(): string[] {
    return [...this.#queues.values()].map((q) => q.name).sort();
  }

  /** Adds the queues of numbers that got campaigns since the last look (at most one look a second). */
  async refresh(): Promise<void> {
    if (this.#now() - this.#lastLook < QUEUE_DISCOVERY_INTERVAL_MS) return;
    this.#looking ??= this.#look().finally(() => {
      this.#looking = undefined;
    });
    return this.#looking;
  }

  async close(): Promise<void> {
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
  }

  async #look(): Promise<void> {
    const numbers = await this.#options.numbers();
    this.#lastLook = this.#now();
    for (const number of numbers) {
      if (this.#queues.has(number)) continue;
      const queue = openSendQueue(number, this.#options.redis, this.#options.prefix);
      // bull-board answers a failed read with an error of its own; the queue's events add nothing.
      queue.on('error', () => undefined);
      this.#queues.set(number, queue);
      this.#board.addQueue(new BullMQAdapter(queue, { readOnlyMode: true, displayName: `${sendQueueName(number)} (number ${number})` }));
    }
  }
}
