import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { AppError } from '../errors/app-error.js';
import type { ControlledQueue, SweepProgress } from '../campaigns/campaign-controls.js';
import { sendJobId, type SendJob } from '../campaigns/send-job.js';
import type { Logger } from '../logging/logger.js';
import { campaignLedgerKeys } from '../redis/redis-ledger.js';
import { sendQueueName } from './queue-names.js';
import { sweepCampaignJobs } from './waiting-sweep.js';

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

  async sweep(campaignId: string, onProgress?: (progress: SweepProgress) => void): Promise<{ setAside: number; removed: number }> {
    const queue = this.queue;
    // BullMQ's Redis backend hands out the ioredis client it opened for this queue.
    const redis = (await queue.getBackend().client) as unknown as Redis;
    const { setAside, removed } = await sweepCampaignJobs(
      redis,
      {
        ...campaignLedgerKeys(this.#options.prefix, campaignId),
        wait: queue.toKey('wait'),
        delayed: queue.toKey('delayed'),
        jobKeyPrefix: queue.toKey(''),
      },
      campaignId,
      onProgress,
    );
    return { setAside, removed };
  }

  async close(): Promise<void> {
    await this.#queue?.close();
  }
}
