import { join } from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import { reportFileName } from '../../campaigns/campaign-name.js';
import { writeReport } from '../../campaigns/report/report.js';
import { reportUserIds } from '../../redis/webhooks/redis-user-links.js';
import { summaryText, statusText } from '../format.js';
import { packageRoot } from '../../files/package-root.js';
import { loadTemplatesFile, startSandbox } from '../../sandbox/index.js';
import { openContext, type AppContext } from '../../app/app-context.js';
import type { CampaignStatus } from '../../campaigns/campaign.js';
import { runSend } from './send.js';
import { startWorker } from '../../../workers/worker.js';
import { startService } from '../../../workers/serve.js';
import { DEFAULT_REDIS_URL, sandboxRequestLogDir } from '../../config/config.js';
import { startPrivateRedis } from '../../redis/private/private-redis.js';
import { privateRedisStarters } from '../../redis/private/private-redis-starters.js';
import { redisForRun, somethingListens, type RedisForRun } from '../../redis/private/redis-for-run.js';

const SAMPLES = join(packageRoot(), 'samples');
const DEMO_TOKEN = 'sandbox-demo-token';
const DEMO_PHONE_NUMBER_ID = '106540352242922';
/** The demo's own webhook secret and verify token: the sandbox signs with it, the service checks it. */
const DEMO_APP_SECRET = 'sandbox-demo-app-secret';
/** Share of delivered messages the sandbox reports read (its default). */
const DEMO_READ_SHARE = 0.5;

export interface DemoOptions {
  /** Where to look for a Redis when the environment names none (tests point it at a closed port). */
  defaultRedisUrl?: string | undefined;
}

/**
 * `npm run demo`: the whole product in one process, on the Redis the environment names, else
 * the one at 127.0.0.1:6379, else a private Redis it starts (and says which) and stops when it
 * ends, Ctrl-C included: a first try needs nothing installed but Node.
 */
export async function runDemo(options: DemoOptions = {}): Promise<string> {
  const redis = await redisForRun({
    env: process.env,
    defaultUrl: options.defaultRedisUrl ?? DEFAULT_REDIS_URL,
    listens: (url) => somethingListens(url),
    startPrivate: () => startPrivateRedis(privateRedisStarters(process.env.PATH ?? '', (line) => console.log(line))),
  });
  console.log(redis.line);
  const release = stopOnSignals(redis);
  try {
    return await sendSamples(redis.url === undefined ? {} : { REDIS_URL: redis.url });
  } finally {
    release();
    await redis.stop();
  }
}

/** On SIGINT or SIGTERM: stop the private Redis, then exit as the signal would (130, 143). */
function stopOnSignals(redis: RedisForRun): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    void redis.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * The webhook service (`campaign serve`) and a sandbox Cloud API that posts its status
 * webhooks to it, on free ports; a worker at SEND_RATE; the sample CSV sent through them, a
 * progress bar, the delivered and read counts as the webhooks come in, then the report.
 * `redisEnv` overrides the environment's Redis (the private one).
 */
async function sendSamples(redisEnv: Record<string, string>): Promise<string> {
  const templates = await loadTemplatesFile(join(SAMPLES, 'templates.json'));
  const service = await startService(
    { port: 0, host: '127.0.0.1' },
    {
      LOG_LEVEL: 'warn',
      ...process.env,
      ...redisEnv,
      WHATSAPP_APP_SECRET: DEMO_APP_SECRET,
      WEBHOOK_VERIFY_TOKEN: 'sandbox-demo-verify-token',
    },
  );
  const sandbox = await startSandbox({
    templates,
    accessToken: DEMO_TOKEN,
    webhooks: { url: `${service.url}/webhook`, appSecret: DEMO_APP_SECRET, readShare: DEMO_READ_SHARE },
    // SANDBOX_REQUEST_LOG: where to capture its exchanges and webhooks, if anywhere.
    requestLog: sandboxRequestLogDir() ?? false,
  }).catch(async (error: unknown) => {
    await service.close();
    throw error;
  });
  const context = await openContext(
    [],
    { ...redisEnv, WHATSAPP_API_URL: sandbox.url, WHATSAPP_ACCESS_TOKEN: DEMO_TOKEN, WHATSAPP_PHONE_NUMBER_ID: DEMO_PHONE_NUMBER_ID },
    // The progress bar owns the terminal: only warnings unless LOG_LEVEL says otherwise.
    { LOG_LEVEL: 'warn' },
  ).catch(async (error: unknown) => {
    await sandbox.close();
    await service.close();
    throw error;
  });
  const worker = await startWorker(context, { phoneNumberIds: [DEMO_PHONE_NUMBER_ID] });
  try {
    console.log(`Sandbox Cloud API on ${sandbox.url}; sending at ${context.config.send.rate} messages/s.`);
    const summary = await runSend(context, {
      file: join(SAMPLES, 'recipients.csv'),
      template: 'order_update',
      language: 'en_US',
      params: ['first_name', 'order_id'],
      phoneColumn: 'phone',
      templatesFile: join(SAMPLES, 'templates.json'),
      // Each demo has a fresh sandbox: sending the samples again must not be ALREADY_SENT.
      allowRepeat: true,
    });
    console.log(summaryText(summary, context.config.send.rate));

    const bar = new SingleBar({ format: 'Sending |{bar}| {value}/{total} rows answered', hideCursor: true }, Presets.shades_classic);
    bar.start(summary.rows, 0);
    let status = await context.ledger.status(summary.id);
    // A paused campaign (e.g. the error-spike brake) would never complete: stop and say so.
    while (status !== undefined && status.state !== 'completed' && status.state !== 'paused' && status.state !== 'cancelled') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await context.ledger.status(summary.id);
      if (status !== undefined) {
        const c = status.counts;
        bar.update(c.sent + c.failed + c.rejected + c.skipped + c.unknown + c.cancelled);
      }
    }
    bar.stop();
    // Delivered and read come by webhook, up to a couple of seconds after the last send.
    if (status?.state === 'completed') status = await awaitStatusWebhooks(context.ledger, summary.id, status);
    if (status !== undefined) console.log(statusText(status));
    const definition = await context.ledger.getCampaign(summary.id);
    const reportPath = join(context.config.reportsDir, reportFileName(summary.id, definition?.name));
    const userIds = reportUserIds(context.redis, context.config.queuePrefix, context.config.portfolios, DEMO_PHONE_NUMBER_ID);
    await writeReport(context.ledger, summary.id, reportPath, { userIds });
    console.log(`Report: ${reportPath}`);
    console.log(`The sandbox accepted ${sandbox.stats().accepted} messages.`);
    return summary.id;
  } finally {
    await worker.close();
    await sandbox.close();
    await service.close();
    await context.close();
  }
}

/** Waits (at most 10 s) until every sent row is reported delivered and the sandbox's share read. */
async function awaitStatusWebhooks(ledger: AppContext['ledger'], id: string, status: CampaignStatus): Promise<CampaignStatus> {
  const deadline = Date.now() + 10_000;
  let current = status;
  const expected = (s: CampaignStatus) =>
    s.counts.delivered >= s.counts.sent && s.counts.read >= Math.floor(s.counts.sent * DEMO_READ_SHARE);
  while (!expected(current) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    current = (await ledger.status(id)) ?? current;
  }
  return current;
}
