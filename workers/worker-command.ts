import { CloudApiClient } from '../src/cloud-api/cloud-api-client.js';
import { AppError } from '../src/errors/app-error.js';
import { SendProcessor } from '../src/campaigns/send/send-processor.js';
import { RedisSendRecorder } from '../src/metrics/redis-send-recorder.js';
import { RedisSendPacer } from '../src/queue/send-pacer.js';
import { startSendWorker, type RunningSendWorker } from '../src/queue/send-worker.js';
import type { AppContext } from './app-context.js';
import { startRetention } from './purge-runner.js';

export interface RunningWorker {
  sendWorker: RunningSendWorker;
  processor: SendProcessor;
  close(): Promise<void>;
}

/**
 * SIGTERM to exit, at most. Orchestrators (docker, Kubernetes) send SIGKILL 10 s after
 * SIGTERM; leave time to record the rows that could not wait and to close connections.
 */
const SHUTDOWN_GRACE_MS = 8000;
/** After the grace period: time to record the rows still waiting as unknown. */
const RECORD_GRACE_MS = 1500;

/** Builds the send worker for one phone number from config. */
export function startWorker(context: AppContext, options: { phoneNumberId?: string | undefined } = {}): RunningWorker {
  const { config, ledger, redis, logger } = context;
  const phoneNumberId = options.phoneNumberId ?? config.phoneNumberId;
  if (phoneNumberId === undefined || config.accessToken === undefined) {
    throw new AppError('CONFIG_INVALID', 'The worker needs WHATSAPP_ACCESS_TOKEN and WHATSAPP_PHONE_NUMBER_ID (or --phone-number-id)');
  }
  const client = new CloudApiClient({
    baseUrl: config.api.baseUrl,
    apiVersion: config.api.version,
    accessToken: config.accessToken,
    timeoutMs: config.api.timeoutMs,
    connections: Math.max(8, config.send.concurrency),
  });
  // /metrics (issue 12): sends counted in memory, added to Redis once a second for `campaign serve` to read.
  const metrics = new RedisSendRecorder(redis, config.queuePrefix, { logger });
  metrics.start();
  const processor = new SendProcessor({
    ledger,
    metrics,
    sender: client,
    logger: logger.child({ phoneNumberId }),
    pacer: config.send.rate > 0 ? new RedisSendPacer(redis, { prefix: config.queuePrefix, phoneNumberId, messagesPerSecond: config.send.rate }) : undefined,
    confirmInDoubt: config.confirmWindowMs > 0,
  });
  const sendWorker = startSendWorker({
    connection: redis,
    prefix: config.queuePrefix,
    phoneNumberId,
    rate: config.send.rate,
    concurrency: config.send.concurrency,
    processor,
    ledger,
    logger,
    attempts: config.send.attempts,
    backoffMs: config.send.backoffMs,
  });
  logger.info({ phoneNumberId, rate: config.send.rate, concurrency: config.send.concurrency, window: sendWorker.feeder.windowSize }, 'send worker started');
  // RETENTION_DAYS: finished campaigns' personal data is purged by whichever worker gets to it.
  const retention = startRetention(context);
  return {
    sendWorker,
    processor,
    async close() {
      retention.stop();
      await sendWorker.close();
      await metrics.close();
      await client.close();
    },
  };
}

/**
 * `campaign worker`: runs until SIGTERM/SIGINT. Then no new send starts, jobs that had not
 * claimed their row go back to the queue, and in-flight sends get until SHUTDOWN_GRACE_MS
 * to be answered and recorded; any still waiting then are recorded `unknown` (the request
 * left; its answer will not be seen here). A second signal exits at once: those rows are
 * found by the next worker (stalled jobs) and marked `unknown` or retried.
 */
export async function runWorkerUntilSignal(context: AppContext, options: { phoneNumberId?: string | undefined }): Promise<void> {
  const running = startWorker(context, options);
  const { logger } = context;
  await new Promise<void>((resolve) => {
    let closing = false;
    const stop = (signal: NodeJS.Signals) => {
      if (closing) {
        logger.warn({ signal }, 'second signal: exiting now; unfinished rows are retried or marked unknown by the next worker');
        process.exit(130);
      }
      closing = true;
      logger.info({ signal }, `closing: finishing in-flight sends (at most ${SHUTDOWN_GRACE_MS / 1000} s)`);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'late'>((done) => {
        timer = setTimeout(() => done('late'), SHUTDOWN_GRACE_MS);
      });
      const closed = running.close().then(
        () => 'closed' as const,
        (error: unknown) => {
          logger.error({ err: error }, 'error while closing');
          return 'closed' as const;
        },
      );
      void Promise.race([closed, deadline]).then(async (outcome) => {
        clearTimeout(timer);
        if (outcome === 'late') {
          // Bounded too: with Redis away the records would wait forever. Rows not recorded
          // stay `sending`, and the next worker marks them unknown (stalled jobs).
          const abandoned = await Promise.race([
            running.processor.abandonInFlight(),
            new Promise<'unrecorded'>((done) => setTimeout(() => done('unrecorded'), RECORD_GRACE_MS).unref()),
          ]).catch((error: unknown) => {
            logger.error({ err: error }, 'could not record the in-flight rows; the next worker marks them unknown');
            return 'unrecorded' as const;
          });
          logger.warn({ rows: abandoned }, 'in-flight sends did not answer in time: their rows are recorded in doubt (confirming, or unknown with CONFIRM_WINDOW_SECONDS=0)');
          // Leaves BullMQ's close behind: connections close with the process.
          process.exit(1);
        }
        logger.info('worker stopped');
        resolve();
      });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
