import { CloudApiClient } from '../src/cloud-api/cloud-api-client.js';
import { AppError } from '../src/errors/app-error.js';
import { SendProcessor } from '../src/campaigns/send-processor.js';
import { RedisSendPacer } from '../src/queue/send-pacer.js';
import { startSendWorker, type RunningSendWorker } from '../src/queue/send-worker.js';
import type { AppContext } from './app-context.js';

export interface RunningWorker {
  sendWorker: RunningSendWorker;
  close(): Promise<void>;
}

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
  const sendWorker = startSendWorker({
    connection: redis,
    prefix: config.queuePrefix,
    phoneNumberId,
    rate: config.send.rate,
    concurrency: config.send.concurrency,
    processor: new SendProcessor({
      ledger,
      sender: client,
      logger: logger.child({ phoneNumberId }),
      pacer: config.send.rate > 0 ? new RedisSendPacer(redis, { prefix: config.queuePrefix, phoneNumberId, messagesPerSecond: config.send.rate }) : undefined,
    }),
    ledger,
    logger,
  });
  logger.info({ phoneNumberId, rate: config.send.rate, concurrency: config.send.concurrency }, 'send worker started');
  return {
    sendWorker,
    async close() {
      await sendWorker.close();
      await client.close();
    },
  };
}

/** `campaign worker`: runs until SIGTERM/SIGINT, then lets in-flight sends finish and be recorded. */
export async function runWorkerUntilSignal(context: AppContext, options: { phoneNumberId?: string | undefined }): Promise<void> {
  const running = startWorker(context, options);
  await new Promise<void>((resolve) => {
    let closing = false;
    const stop = (signal: NodeJS.Signals) => {
      if (closing) {
        context.logger.warn({ signal }, 'second signal: exiting now; unfinished rows are retried or marked unknown');
        process.exit(130);
      }
      closing = true;
      context.logger.info({ signal }, 'closing: finishing in-flight sends');
      running.close().then(resolve, (error: unknown) => {
        context.logger.error({ err: error }, 'error while closing');
        resolve();
      });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
