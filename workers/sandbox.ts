import { loadConfig } from '../src/config/config.js';
import { AppError } from '../src/errors/app-error.js';
import { sampleTemplatesFile } from '../src/files/package-root.js';
import { createLogger } from '../src/logging/logger.js';
import { loadTemplatesFile } from '../src/templates/templates-file.js';
import { MESSAGING_LIMIT_TIERS, type MessagingLimitTier } from '../src/sandbox/messaging-limit-tiers.js';

/** The token the sandbox accepts when WHATSAPP_ACCESS_TOKEN is not set: it guards nothing real. */
export const DEFAULT_SANDBOX_TOKEN = 'sandbox-token';

/** `campaign sandbox`: a local Cloud API until SIGTERM/SIGINT. */
export async function runSandboxUntilSignal(options: {
  port: number;
  host: string;
  /** `--templates FILE`; else TEMPLATES_FILE, else the package's samples/templates.json. */
  templatesFile?: string | undefined;
  messagesPerSecond: number;
  /** `--webhook-url`: where to post signed status webhooks (needs WHATSAPP_APP_SECRET). */
  webhookUrl?: string | undefined;
  /** `--phone-number-id ID[,ID…]`: numbers the sandbox has besides WHATSAPP_PHONE_NUMBER_ID. */
  phoneNumberIds?: string | undefined;
  /** `--messaging-limit-tier TIER_1K`: what the numbers report as their messaging limit. */
  messagingLimitTier?: string | undefined;
  /** `--retain-accepted N`: keep only the newest N accepted messages in memory. */
  retainAccepted?: number | undefined;
}): Promise<void> {
  checkListenOptions(options);
  const messagingLimitTier = checkTier(options.messagingLimitTier);
  const webhookUrl = checkWebhookUrl(options.webhookUrl);
  const extraIds = checkPhoneNumberIds(options.phoneNumberIds);
  const config = loadConfig(process.env, webhookUrl === undefined ? [] : ['WHATSAPP_APP_SECRET']);
  const logger = createLogger(config.logLevel);
  const templatesFile = options.templatesFile ?? config.templates.file ?? sampleTemplatesFile();
  const templates = await loadTemplatesFile(templatesFile);
  const accessToken = config.accessToken?.reveal() ?? DEFAULT_SANDBOX_TOKEN;
  // Loaded only once the options, settings and templates are known good: a mistake in
  // any of them is reported without paying for fastify.
  const { startSandbox, DEFAULT_PHONE_NUMBER_IDS, DEFAULT_BUSINESS_ACCOUNT_IDS } = await import('../src/sandbox/index.js');
  // The number the worker sends from (same env) and any named on the command line; with
  // neither, the samples' number, so `campaign sandbox` alone still runs the walk-through in docs/cli.md.
  const configured = [...new Set([...(config.phoneNumberId === undefined ? [] : [config.phoneNumberId]), ...extraIds])];
  const sandbox = await startSandbox({
    port: options.port,
    host: options.host,
    templates,
    accessToken,
    phoneNumberIds: configured.length > 0 ? configured : DEFAULT_PHONE_NUMBER_IDS,
    // The WABA the template reader lists (same env), else the one its webhooks name.
    businessAccountIds:
      config.templates.businessAccountId === undefined ? DEFAULT_BUSINESS_ACCOUNT_IDS : [config.templates.businessAccountId],
    messagesPerSecond: options.messagesPerSecond,
    ...(messagingLimitTier === undefined ? {} : { messagingLimitTier }),
    ...(options.retainAccepted === undefined ? {} : { retainAccepted: options.retainAccepted }),
    logger,
    // SANDBOX_REQUEST_LOG: where to capture its exchanges and webhooks, if anywhere.
    requestLog: config.sandboxRequestLog ?? false,
    // Signed with the last secret of the list: in a rotation (OLD,NEW) the new one, as Meta would.
    ...(webhookUrl === undefined ? {} : { webhooks: { url: webhookUrl, appSecret: config.webhook.appSecrets.at(-1)?.reveal() ?? '' } }),
  });
  const tokenNote = config.accessToken === undefined ? `token "${DEFAULT_SANDBOX_TOKEN}"` : 'the token in WHATSAPP_ACCESS_TOKEN';
  console.log(`Sandbox Cloud API listening on ${sandbox.url} (${templates.length} templates from ${templatesFile}, accepts ${tokenNote})`);
  console.log(`Phone-number IDs: ${sandbox.phoneNumberIds.join(', ')}`);
  console.log(`WhatsApp Business Account IDs: ${sandbox.businessAccountIds.join(', ')}`);
  if (webhookUrl !== undefined) console.log(`Webhooks (statuses, inbound messages) go to ${webhookUrl}, signed with WHATSAPP_APP_SECRET`);
  await new Promise<void>((resolve) => {
    const stop = () => void sandbox.close().then(resolve);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

/** `--messaging-limit-tier`: one of Meta's tier names. */
function checkTier(tier: string | undefined): MessagingLimitTier | undefined {
  if (tier === undefined) return undefined;
  const found = MESSAGING_LIMIT_TIERS.find((t) => t === tier.toUpperCase());
  if (found === undefined)
    throw new AppError('OPTION_INVALID', `--messaging-limit-tier "${tier.slice(0, 40)}": use one of ${MESSAGING_LIMIT_TIERS.join(', ')}`);
  return found;
}

/** `--webhook-url` must be an http(s) URL: a typo would otherwise only show as webhooks that never arrive. */
function checkWebhookUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new AppError(
      'OPTION_INVALID',
      `--webhook-url "${url}": give the receiver's http(s) URL, e.g. http://127.0.0.1:8080/webhook (campaign serve)`,
    );
  }
  return url;
}

/** `--phone-number-id`: comma-separated numeric IDs (Meta's form); a typo would only show as 100/33 answers later. */
function checkPhoneNumberIds(value: string | undefined): string[] {
  if (value === undefined) return [];
  const ids = value.split(',').map((id) => id.trim());
  const bad = ids.find((id) => !/^\d{1,20}$/.test(id));
  if (bad !== undefined) {
    throw new AppError(
      'OPTION_INVALID',
      `--phone-number-id "${bad}": give numeric phone-number IDs, comma-separated (e.g. 106540352242922,106540352242923)`,
    );
  }
  return ids;
}

/**
 * The options as the CLI parsed them, checked before anything starts: a bad one is the
 * operator's to fix (OPTION_INVALID), not a RangeError from deep inside start-up. An empty
 * --host (an unset shell variable) would bind every address and print an unusable URL.
 */
function checkListenOptions(options: { port: number; host: string; messagesPerSecond: number }): void {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new AppError('OPTION_INVALID', `--port ${options.port}: give a whole number from 0 to 65535 (0 picks a free one)`);
  }
  if (!Number.isInteger(options.messagesPerSecond) || options.messagesPerSecond < 0) {
    throw new AppError('OPTION_INVALID', `--mps ${options.messagesPerSecond}: give a whole number, 0 or more (0 = unlimited)`);
  }
  if (options.host.trim() === '') {
    throw new AppError('OPTION_INVALID', '--host is empty: give an address of this host, e.g. 127.0.0.1 (0.0.0.0 listens on every one)');
  }
}
