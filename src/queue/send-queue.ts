import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { AppError } from '../errors/app-error.js';
import { compactGroup, isSendGroup, queuedSendId, type QueuedSend, type SendJobQueue } from '../campaigns/send-job.js';
import type { Logger } from '../logging/logger.js';
import { openSendQueue } from './open-send-queue.js';

export interface SendQueueOptions {
  connection: ConnectionOptions;
  prefix: string;
  phoneNumberId: string;
  attempts: number;
  backoffMs: number;
  logger: Logger;
}

/**
 * How many finished jobs a number's queue keeps, for dashboards only: the ledger keeps every
 * row's answer, and a job holds nothing personal (it names its campaign and rows). A job
 * carries up to 100 rows (about 4 KB): 100 completed jobs show a number's last 10,000 or so
 * sends, and keep about 0.4 MB a number where 1,000 kept 4 MB. Set on the worker, not on each
 * job: BullMQ applies the worker's setting to jobs that carry none, and options carried by
 * every job are packed when it is added and unpacked when it is taken.
 */
export const FINISHED_JOBS_KEPT = { removeOnComplete: { count: 100 }, removeOnFail: { count: 10_000 } } as const;

/** Jobs per addBulk (one MULTI each). */
const ENQUEUE_CHUNK = 100;

/** The feeder's side of a phone number's send queue. */
export class BullSendQueue implements SendJobQueue {
  readonly #options: SendQueueOptions;
  readonly #jobOptions: JobsOptions;
  #queue: Queue | undefined;

  constructor(options: SendQueueOptions) {
    this.#options = options;
    // How long finished jobs linger is the worker's FINISHED_JOBS_KEPT.
    this.#jobOptions = { attempts: options.attempts, backoff: { type: 'exponential', delay: options.backoffMs, jitter: 0.5 } };
  }

  /**
   * Opened on first use: a file refused at its header never opens a queue. (BullMQ 6.7 also
   * stalls ~2 s in close() when a Queue is closed within milliseconds of being created.)
   */
  get queue(): Queue {
    if (this.#queue === undefined) {
      const { phoneNumberId, connection, prefix, logger } = this.#options;
      this.#queue = openSendQueue(phoneNumberId, connection, prefix);
      this.#queue.on('error', (error) => logger.error({ err: error }, 'send queue error'));
    }
    return this.#queue;
  }

  async enqueue(jobs: readonly QueuedSend[]): Promise<void> {
    // addBulk is one MULTI: Redis runs all of it before anything else. 1,250 jobs (a quarter of
    // the window at 1,000 msg/s) held every other command of every number for about 70 ms, and
    // the sends that waited then left together. Chunks keep each hold to a few milliseconds.
    for (let i = 0; i < jobs.length; i += ENQUEUE_CHUNK) await this.#enqueueChunk(jobs.slice(i, i + ENQUEUE_CHUNK));
  }

  async #enqueueChunk(jobs: readonly QueuedSend[]): Promise<void> {
    const added = await this.queue.addBulk(
      jobs.map((data) => ({
        name: 'send',
        data: isSendGroup(data) ? compactGroup(data) : data,
        opts: { ...this.#jobOptions, jobId: queuedSendId(data) },
      })),
    );
    // addBulk resolves even when an entry was refused (its id comes back negative or missing).
    const refused = added.filter((job) => job.id === undefined || job.id.startsWith('-')).length;
    if (refused > 0 || added.length !== jobs.length) {
      throw new AppError('ENQUEUE_FAILED', `BullMQ refused ${refused || jobs.length - added.length} of ${jobs.length} jobs`);
    }
  }

  async close(): Promise<void> {
    await this.#queue?.close();
  }
}
