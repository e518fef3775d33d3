import { join } from 'node:path';
import { startWorker, type RunningWorker } from '../../workers/worker.js';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import type { SendOptions } from '../../src/cli/run/send.js';
import { loadTemplatesFile, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { tempDir } from './csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from './pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from './redis.js';

const TOKEN = 'send-rig-token';

/**
 * What a test of `campaign send` drives: the sandbox (no throughput limit), a context on real
 * Redis under a fresh prefix, a temp folder for files and reports, and the real worker on
 * demand. `close()` stops and removes all of it.
 */
export interface SendRig {
  prefix: string;
  dir: string;
  sandbox: Sandbox;
  context: AppContext;
  /** `order_update` (en_US) with `first_name,order_id`, from the samples, and `extra` over it. */
  options(file: string, extra?: Partial<SendOptions>): SendOptions;
  /** Starts the worker (once; a second call returns the running one). */
  startWorker(): Promise<RunningWorker>;
  stopWorker(): Promise<void>;
  /** How often the sandbox accepted a message for each recipient. */
  acceptedPerRecipient(): Map<string, number>;
  close(): Promise<void>;
}

/** `sandbox`: more of the sandbox's options (its numbers, its faults). */
export async function startSendRig(
  label: string,
  env: Record<string, string> = {},
  sandboxOptions: Partial<Omit<SandboxOptions, 'templates' | 'accessToken'>> = {},
): Promise<SendRig> {
  const prefix = freshPrefix(label);
  const dir = await tempDir();
  const sandbox = await startSandbox({
    templates: await loadTemplatesFile(SAMPLE_TEMPLATES),
    accessToken: TOKEN,
    messagesPerSecond: 0,
    ...sandboxOptions,
  });
  const context = await openContext([], {
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: prefix,
    WHATSAPP_API_URL: sandbox.url,
    WHATSAPP_ACCESS_TOKEN: TOKEN,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    SEND_RATE: '0',
    LOG_LEVEL: 'silent',
    REPORTS_DIR: join(dir.dir, 'reports'),
    ...env,
  });
  let worker: RunningWorker | undefined;
  const stopWorker = async (): Promise<void> => {
    await worker?.close();
    worker = undefined;
  };
  return {
    prefix,
    dir: dir.dir,
    sandbox,
    context,
    options: (file, extra = {}) => ({
      file,
      template: 'order_update',
      language: 'en_US',
      params: ['first_name', 'order_id'],
      phoneColumn: 'phone',
      templatesFile: SAMPLE_TEMPLATES,
      ...extra,
    }),
    startWorker: async () => (worker ??= await startWorker(context)),
    stopWorker,
    acceptedPerRecipient: () => {
      const counts = new Map<string, number>();
      for (const entry of sandbox.accepted()) counts.set(entry.to, (counts.get(entry.to) ?? 0) + 1);
      return counts;
    },
    close: async () => {
      await stopWorker();
      await removePrefix(context.redis, prefix);
      await context.close();
      await sandbox.close();
      await dir.cleanup();
    },
  };
}
