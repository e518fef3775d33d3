import { DelayedError, Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { SendLedger } from '../campaigns/ledger.js';
import { groupSizeFor, rowsOf, sendGroupSchema, sendJobSchema, type SendGroup } from '../campaigns/send-job.js';
import type { SendProcessor } from '../campaigns/send/send-processor.js';
import type { SendTroubleObserver } from '../campaigns/send/send-trouble.js';
import type { Logger } from '../logging/logger.js';
import { settleAbandoned, settleRecentlyFailed } from './abandoned-jobs.js';
import { sendQueueName, sendQueuePrefix } from './queue-names.js';
import { InDoubtSweep } from '../campaigns/settle/in-doubt-sweep.js';
import { SendFeeder } from '../campaigns/feed/send-feeder.js';
import { BullSendQueue, FINISHED_JOBS_KEPT } from './send-queue.js';
import { limiterFor } from './send-rate-limiter.js';
import type { MessagingLimit } from '../config/number-settings.js';
import { RequestSlots } from '../campaigns/send/request-slots.js';
import { runSendGroup, type GroupOutcome } from './send-group.js';
import { openSendQueue } from './open-send-queue.js';

export interface SendWorkerOptions {
  connection: ConnectionOptions;
  prefix: string;
  phoneNumberId: string;
  /** Messages per second for this phone number, shared by every worker on it; 0 turns the limiter off. */
  rate: number;
  concurrency: number;
  processor: SendProcessor;
  ledger: SendLedger;
  logger: Logger;
  /** BullMQ attempts and first backoff of the jobs this worker's feeder makes. */
  attempts: number;
  backoffMs: number;
  /** Overrides the feeder's window size (tests); see feedWindowSize. */
  feedWindow?: number;
  /** Overrides the rows a job carries (groupSizeFor the rate); 1: a job a row. */
  groupSize?: number;
  /** A feed completed a campaign (its expiry or start deadline answered its last rows); default: logged. */
  onCampaignCompleted?: (campaignId: string) => void;
  /** The number's business portfolio (absent: `default`): the messaging limit is its. */
  portfolio?: string;
  /** MESSAGING_LIMITS' limit of that portfolio; absent: the one a worker or webhook last stored for it. */
  messagingLimit?: MessagingLimit;
  /** The feeder feeds nothing before this settles. */
  feedReady?: Promise<unknown>;
  /** Told of rows BullMQ gave up on (the processor reports its own answers). */
  trouble?: SendTroubleObserver;
}

export interface RunningSendWorker {
  worker: Worker;
  feeder: SendFeeder;
  inDoubt: InDoubtSweep;
  /** Stops taking jobs; jobs not yet sending go back to the queue; waits for in-flight sends. */
  close(): Promise<void>;
}

/** The BullMQ side of sending: turns a processor outcome into BullMQ's control flow. */
export function startSendWorker(options: SendWorkerOptions): RunningSendWorker {
  const name = sendQueueName(options.phoneNumberId);
  const { logger, processor } = options;
  // queue.rateLimit is how v6 pauses every worker of a queue (worker.rateLimit is deprecated).
  const queuePrefix = sendQueuePrefix(options.prefix, options.phoneNumberId);
  const queue = openSendQueue(options.phoneNumberId, options.connection, options.prefix);
  queue.on('error', (error) => logger.error({ err: error }, 'send queue error'));

  const groupSize = options.groupSize ?? groupSizeFor(options.rate);
  const slots = new RequestSlots(options.concurrency);
  const groupDone = (group: SendGroup) => options.ledger.groupDone(options.phoneNumberId, group);
  const process = sendJobProcessor(queue, processor, slots, groupDone);

  const worker = new Worker(name, process, {
    connection: options.connection,
    prefix: queuePrefix,
    concurrency: groupSize > 1 ? groupsAtOnce(options.concurrency, groupSize, options.rate) : options.concurrency,
    ...(options.rate > 0 ? { limiter: limiterFor(options.rate) } : {}),
    ...FINISHED_JOBS_KEPT,
    // A killed worker's jobs are found within seconds (lock 10 s, checked every 3 s). A
    // stalled job is safe to run again: its claim tells a row that was mid-send (→ unknown)
    // from one that never left, so several stalls (several crashes) cost nothing.
    lockDuration: LOCK_DURATION_MS,
    stalledInterval: 3_000,
    maxStalledCount: 5,
    // Endless throttling must end somewhere: the row is then failed with the last code.
    maxStartedAttempts: 500,
  });
  worker.on('error', (error) => logger.error({ err: error }, 'send worker error'));
  const report = { logger, phoneNumberId: options.phoneNumberId, onCampaignCompleted: options.onCampaignCompleted };
  worker.on('failed', (job, error) => {
    if (job === undefined || job.finishedOn === undefined) return;
    // BullMQ gave up on a job outside the processor's own decisions: its rows still get an answer.
    settleAbandoned(options.ledger, job, error.message, { ...report, trouble: options.trouble }).catch((settleError: unknown) =>
      logger.error({ err: settleError }, 'could not record an abandoned job (the next worker start records it)'),
    );
  });
  settleRecentlyFailed(queue, options.ledger, report).catch((error: unknown) =>
    logger.error({ err: error }, 'could not check failed jobs against the ledger'),
  );

  // Every worker of the number tops its window up from the campaigns' backlogs.
  const { feedQueue, feeder } = createFeeder(options);
  feeder.start();
  worker.on('completed', (job) => {
    const group = sendGroupSchema.safeParse(job.data);
    feeder.jobDone(group.success ? rowsOf(group.data) : 1);
  });
  // In-doubt rows (CONFIRM_WINDOW_SECONDS) are decided by whichever worker of the number looks first.
  const inDoubt = new InDoubtSweep({
    ledger: options.ledger,
    phoneNumberId: options.phoneNumberId,
    logger,
    ...(options.onCampaignCompleted === undefined ? {} : { onCampaignCompleted: options.onCampaignCompleted }),
  });
  inDoubt.start();

  return {
    worker,
    feeder,
    inDoubt,
    async close() {
      processor.stop();
      await inDoubt.stop();
      await feeder.stop();
      await worker.close();
      await feedQueue.close();
      await queue.close();
    },
  };
}

/**
 * Group jobs a worker runs at once: enough to keep SEND_CONCURRENCY rows in the send path, and
 * some ready behind them. A group's end (its last answers recorded, its job completed, the next
 * one fetched) takes tens of ms. Paced, one group behind covers that. Unpaced, rows go as fast
 * as the API answers, a few groups' worth in that time: with one group behind, the slots stood
 * empty at each group's end (80% busy over a drain); with three, 97%.
 */
export function groupsAtOnce(concurrency: number, groupSize: number, rate: number): number {
  return Math.ceil(concurrency / groupSize) + (rate > 0 ? 1 : 3);
}

/** A send job's BullMQ lock: renewed every half of it while the job runs; a job whose lock lapses runs again. */
const LOCK_DURATION_MS = 10_000;
/** How long a lock found held (and so extended for LOCK_DURATION_MS) answers for the job's other rows. */
const LOCK_CHECK_REUSE_MS = 1000;

/**
 * Whether this worker still holds `job`: its lock, extended when it is (BullMQ's extendLock). A job
 * whose lock lapsed may be running elsewhere; an error answers false, as nothing then says it is
 * not. A lock found held is good for LOCK_DURATION_MS: that answer serves the job's rows for a second.
 */
export function jobHeldCheck(job: Job, token: string | undefined): () => Promise<boolean> {
  let last: { at: number; held: Promise<boolean> } | undefined;
  return () => {
    if (token === undefined) return Promise.resolve(true);
    if (last === undefined || performance.now() - last.at > LOCK_CHECK_REUSE_MS) {
      last = {
        at: performance.now(),
        held: job.extendLock(token, LOCK_DURATION_MS).then(
          (n) => Number(n) === 1,
          () => false,
        ),
      };
    }
    return last.held;
  };
}

/** Runs a send job (a row, or a group of rows) through the processor and turns its outcome into BullMQ's control flow. */
function sendJobProcessor(
  queue: Queue,
  processor: SendProcessor,
  slots: RequestSlots,
  groupDone: (group: SendGroup) => Promise<void>,
): (job: Job, token?: string) => Promise<string> {
  return async (job: Job, token?: string): Promise<string> => {
    const isLastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const jobStillHeld = jobHeldCheck(job, token);
    const group = sendGroupSchema.safeParse(job.data);
    if (group.success) {
      const outcome = await runSendGroup(group.data, processor, { isLastAttempt, jobStillHeld }, slots);
      return groupControl(queue, job, token, group.data, outcome, groupDone);
    }
    const parsed = sendJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`job ${job.id ?? '?'} is not a send job: ${parsed.error.issues[0]?.message ?? ''}`);
    const outcome = await processor.process(parsed.data, {
      isLastAttempt,
      jobStillHeld,
      pairDelays: parsed.data.pairDelays ?? 0,
      requests: slots,
    });
    if (outcome.kind === 'done') return outcome.status;
    const delays = (parsed.data.pairDelays ?? 0) + 1;
    return bullControl(
      queue,
      job,
      token,
      outcome.kind === 'delay-recipient' ? { ...outcome, data: { ...parsed.data, pairDelays: delays } } : outcome,
    );
  };
}

/** A group's outcome as BullMQ's control flow; a group done leaves the number's window. */
async function groupControl(
  queue: Queue,
  job: Job,
  token: string | undefined,
  group: SendGroup,
  outcome: GroupOutcome,
  groupDone: (group: SendGroup) => Promise<void>,
): Promise<string> {
  if (outcome.kind === 'done') {
    await groupDone(group);
    return `${outcome.rows} rows`;
  }
  return bullControl(
    queue,
    job,
    token,
    outcome.kind === 'delay-recipient' ? { ...outcome, data: { ...group, pairDelays: outcome.pairDelays } } : outcome,
  );
}

/** What BullMQ does with a job (a row or a group) that is not done; never returns. */
type NotDone =
  | { kind: 'retry'; error: Error }
  | { kind: 'throttle-number'; ms: number }
  /** `data`: the job's data with its pair delays counted. */
  | { kind: 'delay-recipient'; ms: number; data: object }
  | { kind: 'release' };

async function bullControl(queue: Queue, job: Job, token: string | undefined, outcome: NotDone): Promise<never> {
  switch (outcome.kind) {
    case 'retry':
      throw outcome.error;
    case 'throttle-number':
      await queue.rateLimit(outcome.ms);
      throw Worker.RateLimitError();
    case 'delay-recipient':
      // Counted in the job itself: throttles and restarts of the number must not lengthen a recipient's delay.
      await job.updateData(outcome.data);
      await job.moveToDelayed(Date.now() + outcome.ms, token);
      throw new DelayedError();
    case 'release':
      // Back to the queue for another worker, without using an attempt.
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
  }
}

/** The feeder that tops this worker's window up from the campaigns' backlogs, and the queue it feeds. */
function createFeeder(options: SendWorkerOptions): { feedQueue: BullSendQueue; feeder: SendFeeder } {
  const { logger } = options;
  const feedQueue = new BullSendQueue({
    connection: options.connection,
    prefix: options.prefix,
    phoneNumberId: options.phoneNumberId,
    attempts: options.attempts,
    backoffMs: options.backoffMs,
    logger,
  });
  const feeder = new SendFeeder({
    ledger: options.ledger,
    queue: feedQueue,
    phoneNumberId: options.phoneNumberId,
    messagesPerSecond: options.rate,
    logger,
    ...(options.feedWindow === undefined ? {} : { windowSize: options.feedWindow }),
    ...(options.groupSize === undefined ? {} : { groupSize: options.groupSize }),
    ...(options.onCampaignCompleted === undefined ? {} : { onCampaignCompleted: options.onCampaignCompleted }),
    ...(options.portfolio === undefined ? {} : { portfolio: options.portfolio }),
    ...(options.messagingLimit === undefined ? {} : { messagingLimit: options.messagingLimit }),
    ...(options.feedReady === undefined ? {} : { ready: options.feedReady }),
  });
  return { feedQueue, feeder };
}
