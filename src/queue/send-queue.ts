import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { AppError } from '../errors/app-error.js';
import type { ControlledQueue } from '../campaigns/campaign-controls.js';
import { sendJobId, sendJobSchema, type SendJob } from '../campaigns/send-job.js';
import type { Logger } from '../logging/logger.js';
import { sendQueueName } from './queue-names.js';

export interface SendQueueOptions {
  connection: ConnectionOptions;
  prefix: string;
  phoneNumberId: string;
  attempts: number;
  backoffMs: number;
  logger: Logger;
}

/** The producer's side of a phone number's send queue. */
export class BullSendQueue implements ControlledQueue {
  readonly #options: SendQueueOptions;
  readonly #jobOptions: JobsOptions;
  #queue: Queue | undefined;

  constructor(options: SendQueueOptions) {
    this.#options = options;
    this.#jobOptions = {
      attempts: options.attempts,
      backoff: { type: 'exponential', delay: options.backoffMs, jitter: 0.5 },
      // The ledger keeps every row's answer; finished jobs only need to linger for dashboards.
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 10_000 },
    };
  }

  /**
   * Opened on first use: a file refused at its header never opens a queue. (BullMQ 6.7 also
   * stalls ~2 s in close() when a Queue is closed within milliseconds of being created.)
   */
  get queue(): Queue {
    if (this.#queue === undefined) {
      const { phoneNumberId, connection, prefix, logger } = this.#options;
      this.#queue = new Queue(sendQueueName(phoneNumberId), { connection, prefix });
      this.#queue.on('error', (error) => logger.error({ err: error }, 'send queue error'));
    }
    return this.#queue;
  }

  async enqueue(jobs: readonly SendJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const added = await this.queue.addBulk(
      jobs.map((data) => ({
        name: 'send',
        data,
        opts: { ...this.#jobOptions, jobId: sendJobId(data.campaignId, data.row, data.requeue) },
      })),
    );
    // addBulk resolves even when an entry was refused (its id comes back negative or missing).
    const refused = added.filter((job) => job.id === undefined || job.id.startsWith('-')).length;
    if (refused > 0 || added.length !== jobs.length) {
      throw new AppError('ENQUEUE_FAILED', `BullMQ refused ${refused || jobs.length - added.length} of ${jobs.length} jobs`);
    }
  }

  async jobs(jobIds: readonly string[]): Promise<SendJob[]> {
    const found: SendJob[] = [];
    for (let i = 0; i < jobIds.length; i += 200) {
      const jobs = await Promise.all(jobIds.slice(i, i + 200).map((id) => this.queue.getJob(id)));
      for (const job of jobs) {
        const parsed = sendJobSchema.safeParse(job?.data);
        if (parsed.success) found.push(parsed.data);
      }
    }
    return found;
  }

  async remove(jobIds: readonly string[]): Promise<number> {
    let removed = 0;
    // A few hundred at a time: each is one script; together they share the connection's pipeline.
    for (let i = 0; i < jobIds.length; i += 200) {
      const results = await Promise.all(jobIds.slice(i, i + 200).map((id) => this.queue.remove(id)));
      removed += results.filter((result) => result === 1).length;
    }
    return removed;
  }

  async close(): Promise<void> {
    await this.#queue?.close();
  }
}
