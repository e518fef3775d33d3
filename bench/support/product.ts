import { fileURLToPath } from 'node:url';
import { runToExit, startChild, type Child } from './children.js';
import { REDIS_URL } from './redis.js';

/** What the benchmark sends, and how it starts the product: exactly as a user would. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CAMPAIGN_BIN = fileURLToPath(new URL('../../bin/campaign.js', import.meta.url));
export const TEMPLATES_FILE = fileURLToPath(new URL('../../samples/templates.json', import.meta.url));
export const PHONE_NUMBER_ID = '106540352242922';
export const ACCESS_TOKEN = 'bench-sandbox-token';
export const TEMPLATE = { name: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] } as const;
/** The generated CSV's columns: phone,first_name,order_id,city. */
export const CHUNK_SIZE = 1000;
/** The job options src/queue/send-queue.ts gives every job with the default config. */
export const PRODUCT_JOB_OPTIONS = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 1000, jitter: 0.5 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 10_000 },
} as const;

/** The environment of every product child: nothing inherited that could change what it does. */
export function productEnv(prefix: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(WHATSAPP_|SEND_|TEMPLATES_|QUEUE_PREFIX$|LOG_LEVEL$|REPORTS_DIR$)/.test(name)) delete env[name];
  }
  return {
    ...env,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_ACCESS_TOKEN: ACCESS_TOKEN,
    // The approved templates `campaign send` checks the mapping against (the sandbox serves the same file).
    TEMPLATES_FILE,
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** The `campaign send` command line, as a user types it. */
export function sendArgs(file: string, phoneNumberId: string = PHONE_NUMBER_ID): string[] {
  return [
    CAMPAIGN_BIN,
    'send',
    file,
    '--template',
    TEMPLATE.name,
    '--language',
    TEMPLATE.language,
    '--params',
    TEMPLATE.params.join(','),
    '--phone-number-id',
    phoneNumberId,
    '--json',
  ];
}

export interface SendSummary {
  id: string;
  rows: number;
  queued: number;
}

export function parseSendSummary(child: Child): SendSummary {
  const line = child.stdout().trim().split('\n').pop() ?? '';
  const parsed = JSON.parse(line) as Partial<SendSummary>;
  if (typeof parsed.id !== 'string' || typeof parsed.rows !== 'number' || typeof parsed.queued !== 'number') {
    throw new Error(`campaign send printed no JSON summary: ${line}`);
  }
  return { id: parsed.id, rows: parsed.rows, queued: parsed.queued };
}

/** `campaign send` run to completion (untimed setup for drain and rate). */
export async function campaignSend(file: string, prefix: string, phoneNumberId: string = PHONE_NUMBER_ID): Promise<SendSummary> {
  const child = startChild('campaign send', process.execPath, sendArgs(file, phoneNumberId), productEnv(prefix), ROOT);
  await runToExit(child, 300_000);
  return parseSendSummary(child);
}

/** A bench/*.ts script run as its own process, with tsx like `npm run bench` itself. */
export function benchScriptArgs(script: string, args: readonly string[]): string[] {
  return ['--import', 'tsx', fileURLToPath(new URL(`../${script}`, import.meta.url)), ...args];
}
