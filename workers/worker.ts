import { frequencyGuardOf } from '../src/app/frequency-guard-of.js';
import { CloudApiClient } from '../src/cloud-api/cloud-api-client.js';
import { AppError } from '../src/errors/app-error.js';
import { SendProcessor } from '../src/campaigns/send/send-processor.js';
import { RedisSendRecorder } from '../src/redis/metrics/redis-send-recorder.js';
import { RedisSendPacer } from '../src/redis/pacer/redis-send-pacer.js';
import { startSendWorker } from '../src/queue/send-worker.js';
import type { AppContext } from '../src/app/app-context.js';
import { startRetention } from '../src/app/campaign-purge.js';
import { messagingLimitOf, sendConcurrencyOf, sendRateOf } from '../src/config/config.js';
import { portfolioOf } from '../src/portfolios/portfolios.js';
import type { Secret } from '../src/config/secret.js';
import { PhoneNumberDiscovery, type ServedNumber } from '../src/queue/phone-number-discovery.js';
import { MessagingLimitSource } from '../src/queue/messaging-limit-source.js';
import { fetchMessagingLimit } from '../src/cloud-api/messaging-limit-client.js';
import { SendTroubleLog } from '../src/logging/send-trouble-log.js';
import { openCampaignMedia } from '../src/app/campaign-media-deps.js';
import type { MediaIdSource } from '../src/campaigns/media/campaign-media.js';

export interface RunningWorker {
  /** The numbers this process serves, and the look for new ones. */
  numbers: PhoneNumberDiscovery;
  /** Shutdown could not wait: the rows whose requests are still out become in doubt. Returns how many. */
  abandonInFlight(): Promise<number>;
  /** Logs the send problems counted and not yet logged (an exit that cannot wait for close). */
  flushTroubleLog(): void;
  close(): Promise<void>;
}

/**
 * SIGTERM to exit, at most. Orchestrators (docker, Kubernetes) send SIGKILL 10 s after
 * SIGTERM; leave time to record the rows that could not wait and to close connections.
 */
const SHUTDOWN_GRACE_MS = 8000;
/** After the grace period: time to record the rows still waiting as unknown. */
const RECORD_GRACE_MS = 1500;
/** The first feed of a number waits this long at most for its messaging limit to be read. */
const FIRST_LIMIT_READ_MS = 5000;

/**
 * The send workers of one process: one per phone number, for the numbers in `phoneNumberIds`
 * (`--phone-number-id A,B`), or else for every number that has campaigns, found as they appear.
 * Each number runs at its own rate (SEND_RATES, else SEND_RATE), shared with every other
 * process serving it. Resolves once the numbers known now are served.
 */
export async function startWorker(
  context: AppContext,
  options: { phoneNumberIds?: readonly string[] | undefined } = {},
): Promise<RunningWorker> {
  const { config, redis, logger } = context;
  if (config.accessToken === undefined) throw new AppError('CONFIG_INVALID', 'The worker needs WHATSAPP_ACCESS_TOKEN');
  const accessToken = config.accessToken;
  // /metrics: sends counted in memory, added to Redis once a second for `campaign serve` to read.
  const metrics = new RedisSendRecorder(redis, config.queuePrefix, { logger });
  metrics.start();
  // Throttles, retries and failed rows, for the operator: a few lines, not one per row.
  const trouble = new SendTroubleLog({ logger });
  trouble.start();
  const processors = new Set<SendProcessor>();
  // Media sent by ID: one store of uploads and one fetcher for every number of this process.
  const media = openCampaignMedia(config, redis, []);
  const numbers = new PhoneNumberDiscovery({
    only: options.phoneNumberIds,
    known: () => context.ledger.phoneNumbers(),
    serve: (phoneNumberId) => {
      const served = serveNumber(context, phoneNumberId, accessToken, { metrics, trouble, media });
      processors.add(served.processor);
      return served;
    },
    logger,
  });
  await numbers.start();
  logger.info(
    { phoneNumbers: numbers.numbers, discovering: options.phoneNumberIds === undefined },
    options.phoneNumberIds === undefined
      ? 'send worker started: serving every phone number with campaigns, and new ones as their first campaign arrives'
      : 'send worker started',
  );
  // RETENTION_DAYS: finished campaigns' personal data is purged by whichever worker gets to it.
  const retention = startRetention(context);
  return {
    numbers,
    abandonInFlight: async () =>
      (await Promise.all([...processors].map((processor) => processor.abandonInFlight()))).reduce((a, b) => a + b, 0),
    flushTroubleLog: () => trouble.flush(),
    async close() {
      retention.stop();
      await numbers.close();
      await metrics.close();
      await media.close();
      // After the numbers closed: the answers of the last in-flight sends are counted too.
      trouble.stop();
    },
  };
}

/** One phone number's sending: its API client, pacer, processor and queue worker (with feeder and in-doubt sweep). */
function serveNumber(
  context: AppContext,
  phoneNumberId: string,
  accessToken: Secret,
  shared: { metrics: RedisSendRecorder; trouble: SendTroubleLog; media: MediaIdSource },
): ServedNumber & { processor: SendProcessor } {
  const { metrics, trouble, media } = shared;
  const { config, ledger, redis, logger } = context;
  const numberLogger = logger.child({ phoneNumberId });
  // The campaign's pending send problems are logged before the line that says it is done.
  const onCampaignCompleted = (campaignId: string) => {
    trouble.campaignCompleted(campaignId);
    numberLogger.info({ campaignId }, 'campaign completed');
  };
  const rate = sendRateOf(config.send, phoneNumberId);
  const concurrency = sendConcurrencyOf(config.send, phoneNumberId);
  const client = new CloudApiClient({
    baseUrl: config.api.baseUrl,
    apiVersion: config.api.version,
    accessToken,
    timeoutMs: config.api.timeoutMs,
    connections: Math.max(8, concurrency),
  });
  const processor = new SendProcessor({
    ledger,
    metrics,
    trouble,
    onCampaignCompleted,
    sender: client,
    logger: numberLogger,
    pacer: rate > 0 ? new RedisSendPacer(redis, { prefix: config.queuePrefix, phoneNumberId, messagesPerSecond: rate }) : undefined,
    confirmInDoubt: config.confirmWindowMs > 0,
    media,
    frequency: frequencyGuardOf(context),
  });
  const limits = messagingLimitSource(context, phoneNumberId, accessToken);
  const fixedLimit = messagingLimitOf(config, phoneNumberId);
  const sendWorker = startSendWorker({
    portfolio: portfolioOf(config.portfolios, phoneNumberId),
    ...(fixedLimit === undefined ? {} : { messagingLimit: fixedLimit }),
    // A slow Graph API holds the first feed back 5 s at most; the limit then applies from when it is known.
    feedReady: Promise.race([limits.start(), new Promise((resolve) => setTimeout(resolve, FIRST_LIMIT_READ_MS).unref())]),
    connection: redis,
    prefix: config.queuePrefix,
    phoneNumberId,
    rate,
    concurrency,
    processor,
    ledger,
    logger,
    attempts: config.send.attempts,
    backoffMs: config.send.backoffMs,
    trouble,
    onCampaignCompleted,
  });
  logger.info(
    {
      phoneNumberId,
      rate,
      concurrency,
      window: sendWorker.feeder.windowSize,
      portfolio: portfolioOf(config.portfolios, phoneNumberId),
      messagingLimit: fixedLimit ?? 'from the Cloud API',
    },
    'serving phone number',
  );
  return {
    processor,
    async close() {
      limits.stop();
      await sendWorker.close();
      await client.close();
    },
  };
}

/**
 * Meta's messaging limit of the number's portfolio: MESSAGING_LIMITS, else the tier the API
 * reports on the number (Meta answers the portfolio's on each of its numbers), read before the
 * first feed and stored for the portfolio, where every feed of its numbers reads it.
 */
function messagingLimitSource(context: AppContext, phoneNumberId: string, accessToken: Secret): MessagingLimitSource {
  const { config, ledger, logger } = context;
  const portfolio = portfolioOf(config.portfolios, phoneNumberId);
  return new MessagingLimitSource({
    phoneNumberId,
    fixed: messagingLimitOf(config, phoneNumberId),
    fetch: () =>
      fetchMessagingLimit({
        baseUrl: config.api.baseUrl,
        apiVersion: config.api.version,
        phoneNumberId,
        accessToken,
        timeoutMs: config.api.timeoutMs,
      }),
    store: (limit) => ledger.recordMessagingLimit(portfolio, limit),
    logger,
  });
}

/**
 * `campaign worker`: runs until SIGTERM/SIGINT. Then no new send starts, jobs that had not
 * claimed their row go back to the queue, and in-flight sends get until SHUTDOWN_GRACE_MS
 * to be answered and recorded; any still waiting then are recorded `unknown` (the request
 * left; its answer will not be seen here). A second signal exits at once: those rows are
 * found by the next worker (stalled jobs) and marked `unknown` or retried.
 */
export async function runWorkerUntilSignal(
  context: AppContext,
  options: { phoneNumberIds?: readonly string[] | undefined },
): Promise<void> {
  const running = await startWorker(context, options);
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
            running.abandonInFlight(),
            new Promise<'unrecorded'>((done) => setTimeout(() => done('unrecorded'), RECORD_GRACE_MS).unref()),
          ]).catch((error: unknown) => {
            logger.error({ err: error }, 'could not record the in-flight rows; the next worker marks them unknown');
            return 'unrecorded' as const;
          });
          running.flushTroubleLog();
          logger.warn(
            { rows: abandoned },
            'in-flight sends did not answer in time: their rows are recorded in doubt (confirming, ' +
              'or unknown with CONFIRM_WINDOW_SECONDS=0)',
          );
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
