import { listenFailure, urlHost } from '../http/listen.js';
import type { Logger } from 'pino';
import type { MessageTemplate } from '../templates/template-schema.js';
import type { AcceptedMessage } from './accepted-log.js';
import type { FaultSettings } from './faults.js';
import { DEFAULT_PHONE_NUMBER_IDS } from './phone-numbers.js';
import { DEFAULT_BUSINESS_ACCOUNT_IDS } from './business-accounts.js';
import { SandboxRuntime, type SandboxStats } from './sandbox-runtime.js';
import { RequestLog } from './request-log.js';
import { buildServer } from './server.js';
import { sandboxRequestLogDir } from '../config/config.js';
import { StatusWebhookSender, type StatusWebhookSettings } from './status-webhooks.js';
import { WebhookPoster } from './webhook-poster.js';

/**
 * The sandbox: a local Cloud API exactly as strict as Meta's (templates, validation rules,
 * error codes, throughput and pair limits, fault injection). It is the embedded default
 * that lets a new user run a campaign with no Meta account, and the peer the integration
 * tests and benchmarks run against. This file is its whole public surface.
 */
export type { AcceptedMessage } from './accepted-log.js';
export type { AsyncFailure } from './async-failures.js';
export type { UnknownUserFailure } from './unknown-user.js';
export type { FaultSettings } from './faults.js';
export { DEFAULT_PHONE_NUMBER_IDS } from './phone-numbers.js';
export { API_VERSIONS, servedVersion, type ApiVersion } from './api-versions.js';
export { DEFAULT_BUSINESS_ACCOUNT_IDS } from './business-accounts.js';
export type { SandboxStats } from './sandbox-runtime.js';
export type { StatusWebhookSettings } from './status-webhooks.js';
export type { CapturedExchange, CapturedFilePart, CapturedLine, CapturedWebhook } from './request-log.js';
export { loadTemplatesFile } from '../templates/templates-file.js';
export { MESSAGING_LIMIT_TIERS, type MessagingLimitTier } from './messaging-limit-tiers.js';
import type { MessagingLimitTier } from './messaging-limit-tiers.js';

export interface SandboxOptions {
  /** 0 = any free port (default 0). */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  templates: MessageTemplate[];
  /** The bearer token it accepts. */
  accessToken: string;
  /**
   * Its business numbers (phone-number IDs, digits). A send to any other ID is refused as Meta
   * refuses it (400 / 100, subcode 33); inbound messages go to the first unless told. Default
   * DEFAULT_PHONE_NUMBER_IDS (the ID the samples, demo and tests use).
   */
  phoneNumberIds?: readonly string[];
  /**
   * The WhatsApp Business Account IDs whose templates `GET /{waba-id}/message_templates`
   * lists; any other is refused as Graph refuses it (400 / 100, subcode 33). Default
   * DEFAULT_BUSINESS_ACCOUNT_IDS (the WABA its webhooks name).
   */
  businessAccountIds?: readonly string[];
  /** Per phone-number-id throughput, default 80 (Meta's default); 0 = unlimited (for benchmarks). */
  messagesPerSecond?: number;
  /** The messaging limit GET /{phone-number-id} reports for every number; default TIER_UNLIMITED. */
  messagingLimitTier?: MessagingLimitTier;
  /** Keep only about this many of the newest accepted messages (GET /_sandbox/accepted); default all. Stats count every one. */
  retainAccepted?: number;
  /** Default { burst: 45, refillMs: 6000 } (Meta's pair limit); false = off. */
  pairLimit?: { burst: number; refillMs: number } | false;
  faults?: FaultSettings;
  /**
   * Post signed webhooks to this receiver: statuses (sent, delivered, read, or failed) for
   * accepted sends, and the inbound messages POST /_sandbox/inbound plays.
   */
  webhooks?: StatusWebhookSettings;
  /** Optional; default silent. */
  logger?: Logger;
  /**
   * The clock (ms) its limits, stats, faults, service windows and API versions read; default Date.now. A test
   * passes one it moves, so a per-second window passes without waiting for it.
   */
  clock?: () => number;
  /**
   * A directory to capture every exchange on Meta's routes and every webhook posted in, as
   * NDJSON in a file of this sandbox's own (request-log.ts); default SANDBOX_REQUEST_LOG, and
   * false turns it off whatever the environment says. Off, it costs nothing.
   */
  requestLog?: string | false;
}

export interface Sandbox {
  /** e.g. http://127.0.0.1:43121 (no trailing slash); clients call `${url}/v25.0/${phoneNumberId}/messages`. */
  url: string;
  port: number;
  /** The phone-number IDs it answers for, the first being where inbound messages go by default. */
  phoneNumberIds: readonly string[];
  /** The WABA IDs whose templates it lists. */
  businessAccountIds: readonly string[];
  accepted(): readonly AcceptedMessage[];
  /**
   * busiestSecond = max accepted messages in any sliding 1000 ms window (by receivedAt);
   * requests / busiestRequestSecond count every /messages request past the token check;
   * duplicates = accepted sends repeating an earlier accepted one.
   */
  stats(): SandboxStats;
  /** Replaces every fault (restarts recipientErrors counters and maintenance); throws on bad settings, changing nothing. */
  setFaults(f: FaultSettings): void;
  setAccessToken(token: string): void;
  /** Opens that user's 24 h service window as an inbound message would, without posting a webhook. */
  openServiceWindow(phone: string, at?: number): void;
  /** Forgets accepted messages, counters and stats, windows and limiter state; keeps faults. */
  reset(): void;
  /** Hook so signed status webhooks can be added without reshaping anything. */
  onAccepted(listener: (m: AcceptedMessage) => void): () => void;
  close(): Promise<void>;
}

export const DEFAULT_MESSAGES_PER_SECOND = 80;
export const DEFAULT_PAIR_LIMIT = { burst: 45, refillMs: 6000 } as const;

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const messagesPerSecond = options.messagesPerSecond ?? DEFAULT_MESSAGES_PER_SECOND;
  if (!Number.isInteger(messagesPerSecond) || messagesPerSecond < 0) {
    throw new RangeError(`messagesPerSecond must be a non-negative integer, got ${messagesPerSecond}`);
  }
  const pairLimit = options.pairLimit ?? DEFAULT_PAIR_LIMIT;
  if (pairLimit !== false && !(Number.isInteger(pairLimit.burst) && pairLimit.burst >= 1 && pairLimit.refillMs > 0)) {
    throw new RangeError('pairLimit needs an integer burst >= 1 and refillMs > 0');
  }
  const logger = options.logger;
  const runtime = new SandboxRuntime({
    templates: options.templates,
    accessToken: options.accessToken,
    phoneNumberIds: options.phoneNumberIds ?? DEFAULT_PHONE_NUMBER_IDS,
    businessAccountIds: options.businessAccountIds ?? DEFAULT_BUSINESS_ACCOUNT_IDS,
    messagesPerSecond,
    pairLimit,
    ...(options.messagingLimitTier === undefined ? {} : { messagingLimitTier: options.messagingLimitTier }),
    ...(options.retainAccepted === undefined ? {} : { retainAccepted: options.retainAccepted }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    onListenerError: (error) => logger?.error({ err: error }, 'sandbox onAccepted listener failed'),
  });
  if (options.faults !== undefined) runtime.setFaults(options.faults);
  const logDir = options.requestLog ?? sandboxRequestLogDir();
  const requestLog = logDir === false || logDir === undefined ? undefined : new RequestLog(logDir, logger);
  const poster = options.webhooks === undefined ? undefined : new WebhookPoster(options.webhooks, logger, requestLog);
  const statuses = options.webhooks === undefined || poster === undefined ? undefined : new StatusWebhookSender(options.webhooks, poster);
  if (statuses !== undefined) runtime.log.subscribe((message) => statuses.accepted(message));
  const closeWebhooks = async (): Promise<void> => {
    statuses?.close();
    await poster?.close();
  };

  const server = buildServer(runtime, logger, poster, requestLog);
  const host = options.host ?? '127.0.0.1';
  try {
    await server.app.listen({ port: options.port ?? 0, host });
  } catch (error) {
    await Promise.all([server.close().catch(() => undefined), closeWebhooks()]);
    throw listenFailure(error, host, options.port ?? 0);
  }
  const address = server.app.server.address();
  if (address === null || typeof address === 'string') {
    await Promise.all([server.close(), closeWebhooks()]);
    throw new Error('The sandbox did not get a TCP address');
  }
  const port = address.port;
  requestLog?.start(port);
  const url = `http://${urlHost(host)}:${port}`;
  logger?.info({ url, templates: runtime.templates.size, messagesPerSecond, phoneNumberIds: runtime.numbers.all }, 'sandbox listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    phoneNumberIds: runtime.numbers.all,
    businessAccountIds: [...runtime.businessAccounts],
    accepted: () => runtime.log.all,
    stats: () => runtime.stats(),
    setFaults: (faults) => runtime.setFaults(faults),
    setAccessToken: (token) => runtime.tokens.replace(token),
    openServiceWindow: (phone, at) => {
      runtime.windows.open(phone, at ?? runtime.now());
    },
    reset: () => runtime.reset(),
    onAccepted: (listener) => runtime.log.subscribe(listener),
    close: () => (closing ??= Promise.all([closeWebhooks(), server.close()]).then(() => requestLog?.close())),
  };
}
