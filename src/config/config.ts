import { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import { Secret } from './secret.js';
import { portfolioNameText, portfolioOf, type PortfolioAssignments } from '../portfolios/portfolios.js';
import { parseNumberSettings, wholeNumberText, type MessagingLimit } from './number-settings.js';
import { parsePortfolioLimits } from './portfolio-limits.js';
import { parseFrequencyCaps, type FrequencyCap } from './frequency-caps.js';
import { parseRelayTargets, type RelayTarget } from './relay-targets.js';
import { parseClusterNodes, type ClusterNode } from './cluster-nodes.js';

/**
 * The one reader of process.env. Every setting is parsed here; everything else receives a
 * typed Config. A bad value stops the process with one message listing every problem.
 */
const wholeNumber = (min: number) =>
  z.coerce
    .number({ error: `must be a whole number >= ${min}` })
    .int(`must be a whole number >= ${min}`)
    .min(min, `must be a whole number >= ${min}`);
const positiveInt = (fallback: number) => wholeNumber(1).default(fallback);
/** A setting per phone number, `ID:value,…` (number-settings.ts); a bad entry is named, with the form to write. */
const perNumber = <T>(allowed: (value: string) => T | undefined, example: string) =>
  z
    .string()
    .transform((v, ctx) => {
      const settings = parseNumberSettings(v, allowed, example);
      if (typeof settings === 'string') {
        ctx.addIssue({ code: 'custom', message: settings });
        return z.NEVER;
      }
      return settings;
    })
    .optional();
/** A setting its own parser reads: the value, or the sentence that says what is wrong (shown as the setting's problem). */
const parsedBy = <T>(parse: (value: string) => T | string) =>
  z
    .string()
    .transform((v, ctx) => {
      const parsed = parse(v);
      if (typeof parsed === 'string') {
        ctx.addIssue({ code: 'custom', message: parsed });
        return z.NEVER;
      }
      return parsed;
    })
    .optional();
// A value pasted with its line break or a stray space would fail every webhook later (401 or
// 403 to Meta, which retries for days): refuse it at start-up, without echoing it.
const ONE_LINE = /^[\x21-\x7E]+$/;

/** Where Redis is when REDIS_URL is not set. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** WEBHOOK_INBOX_MAX unset: at a webhook's usual 1–2 KiB, 100–200 MiB of Redis before `serve` refuses more. */
export const DEFAULT_WEBHOOK_INBOX_MAX = 100_000;

const envSchema = z.object({
  REDIS_URL: z
    .string()
    .default(DEFAULT_REDIS_URL)
    .refine((v) => /^rediss?:\/\/[^\s]+$/.test(v), 'must be a redis:// or rediss:// URL'),
  // Seed nodes of a Redis Cluster; REDIS_URL then gives only the password and TLS (rediss://).
  REDIS_CLUSTER_NODES: parsedBy(parseClusterNodes),
  // On a cluster with replicas: claims wait until this many replicas have them (WAIT) before the send.
  REDIS_WAIT_REPLICAS: wholeNumber(0).default(0),
  WHATSAPP_API_URL: z.url({ protocol: /^https?$/ }).default('https://graph.facebook.com'),
  WHATSAPP_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, 'must look like v25.0')
    .default('v25.0'),
  WHATSAPP_PHONE_NUMBER_ID: z.string().regex(/^\d+$/, 'must be the numeric phone-number ID').optional(),
  // One printable line: a pasted newline or "Bearer " prefix would fail every send later.
  WHATSAPP_ACCESS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7E]+$/, 'must be the bare token on one line (no spaces, no "Bearer " prefix)')
    .optional(),
  // 0 turns the limiter off: only for benchmarks, or an API with no throughput limit.
  SEND_RATE: wholeNumber(0).default(80),
  // Per number, over SEND_RATE: `ID:1000,ID2:80` (0 = unlimited for that number).
  SEND_RATES: perNumber(wholeNumberText, '106540352242922:1000,106540352242923:80'),
  WHATSAPP_BUSINESS_ACCOUNT_ID: z.string().regex(/^\d+$/, 'must be the numeric WhatsApp Business Account ID').optional(),
  // A local copy of the message_templates list, used instead of the API when set.
  TEMPLATES_FILE: z.string().min(1).optional(),
  // The rate card the cost estimate and `campaign costs` read (samples/rate-card.example.csv when unset).
  RATE_CARD_FILE: z.string().min(1).optional(),
  TEMPLATES_REFRESH_SECONDS: positiveInt(900),
  // Unset: by the number's rate (sendConcurrencyOf).
  SEND_CONCURRENCY: wholeNumber(1).optional(),
  SEND_ATTEMPTS: positiveInt(6),
  SEND_BACKOFF_MS: positiveInt(1000),
  // Meta's messaging limit per business portfolio (unique users per moving 24 h):
  // `retail:2000,default:unlimited`; `ID:10000` gives the limit of that number's portfolio.
  // A portfolio not named here gets its limit from the API (resolved in loadConfig: needs PORTFOLIOS).
  MESSAGING_LIMITS: z.string().optional(),
  // Which business portfolio each number is in: `ID:retail,ID2:retail,ID3:support`. A number
  // not named is in the portfolio `default`, so by default all numbers share one.
  PORTFOLIOS: perNumber(portfolioNameText, '106540352242922:retail,106540352242923:support'),
  SEND_TIMEOUT_MS: positiveInt(15_000),
  // Error-spike brake: pause a campaign when more than this share of its last
  // AUTO_PAUSE_WINDOW sends failed permanently. A window of 0 turns the brake off.
  AUTO_PAUSE_FAILURE_SHARE: z.coerce
    .number({ error: 'must be a number between 0 and 1, e.g. 0.2' })
    .min(0, 'must be a number between 0 and 1, e.g. 0.2')
    .max(1, 'must be a number between 0 and 1, e.g. 0.2')
    .default(0.2),
  AUTO_PAUSE_WINDOW: wholeNumber(0).default(200),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('cw'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  REPORTS_DIR: z.string().min(1).default('reports'),
  // A one-shot command's deadline (src/cli/command-deadline.ts reads it before the settings are loaded; checked here too).
  CLI_TIMEOUT_SECONDS: wholeNumber(1).default(300),
  // The HTTP API (`campaign serve`, /api/v1): the largest CSV upload it takes, in bytes (413
  // above it), and the requests one token may make per minute (429 above it).
  API_MAX_UPLOAD_BYTES: wholeNumber(1).default(200 * 1024 * 1024),
  API_RATE_LIMIT: wholeNumber(1).default(600),
  // Header media links are fetched only from public addresses (no loopback, private, link-local…: a link
  // must not reach inside our network). 1 allows any: for a test setup or a media server on your own network.
  MEDIA_ALLOW_PRIVATE_HOSTS: z.stringbool({ error: 'must be 1 or 0 (true or false)' }).default(false),
  // The same message to the same recipient from the same number within this many hours is
  // skipped as ALREADY_SENT (a re-run must not double-send). 0 turns the check off.
  DUPLICATE_WINDOW_HOURS: z.coerce
    .number({ error: 'must be a number of hours >= 0, e.g. 24' })
    .min(0, 'must be a number of hours >= 0, e.g. 24')
    .max(24 * 366, 'must be at most a year (8784 hours)')
    .default(24),
  // A row whose request got no answer (timeout, killed worker) waits this long for a status
  // webhook before it is resent once (only when later sends got statuses) or left unknown;
  // 0 turns the rule off (timeouts retried, in-doubt rows unknown at once): for a setup
  // without `campaign serve`, where no status would ever come.
  CONFIRM_WINDOW_SECONDS: wholeNumber(0).default(600),
  // A send Meta holds for quality assessment (`held`) waits this long for the status webhook
  // that releases or drops it; then it ends `unknown` and no longer keeps its campaign open.
  // At least 1: a campaign must end even when no webhook ever comes.
  HELD_PATIENCE_HOURS: z.coerce
    .number({ error: 'must be a number of hours >= 1, e.g. 24' })
    .min(1, 'must be a number of hours >= 1, e.g. 24')
    .max(24 * 30, 'must be at most 30 days (720 hours)')
    .default(24),
  // Finished campaigns' personal data (rows, values, indexes) is purged this many days after
  // they finish; 0 keeps it until `campaign purge`.
  RETENTION_DAYS: wholeNumber(0).default(30),
  // An audience not imported into for this many days is deleted; unset keeps audiences until `campaign purge --audience`.
  AUDIENCE_RETENTION_DAYS: wholeNumber(1).optional(),
  // Per recipient and portfolio, across campaigns and numbers: `marketing:1/24h,marketing:3/7d,utility:5/24h`.
  FREQUENCY_CAPS: parsedBy(parseFrequencyCaps),
  // /metrics: a finished campaign's series are shown this many hours after it finishes, then
  // dropped (bounded cardinality); fractions allowed.
  METRICS_RETENTION_HOURS: z.coerce
    .number({ error: 'must be a number of hours >= 0, e.g. 24' })
    .min(0, 'must be a number of hours >= 0, e.g. 24')
    .max(24 * 366, 'must be at most a year (8784 hours)')
    .default(24),
  // The app secret(s) webhook signatures are checked with; a comma list allows rotation
  // (the old and the new secret are both accepted while Meta switches).
  WHATSAPP_APP_SECRET: z
    .string()
    .transform((v) => v.split(',').map((s) => s.trim()))
    .superRefine((secrets, ctx) => {
      const empty = secrets.findIndex((s) => s === '');
      if (empty >= 0) {
        ctx.addIssue({
          code: 'custom',
          message:
            `entry ${empty + 1} of ${secrets.length} is empty: give the app secret, or several ` +
            `separated by commas to rotate (OLD,NEW)`,
        });
      } else if (!secrets.every((s) => ONE_LINE.test(s))) {
        ctx.addIssue({
          code: 'custom',
          message: 'each app secret must be one word of printable characters (no spaces or line breaks inside)',
        });
      }
    })
    .optional(),
  // What Meta's handshake (GET /webhook) must present as hub.verify_token.
  WEBHOOK_VERIFY_TOKEN: z.string().regex(ONE_LINE, 'must be one word of printable characters (no spaces or line breaks)').optional(),
  // A user's message (or button) that is one of these, case and spacing ignored, is an opt-out.
  OPT_OUT_KEYWORDS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    )
    .default(['STOP', 'UNSUBSCRIBE', 'STOP PROMOTIONS']),
  // A status webhook whose message no row has yet waits this long before it is taken for another tool's.
  WEBHOOK_PARK_SECONDS: wholeNumber(0).default(600),
  // Entries the webhook inbox may hold unconsumed: past it `serve` answers 503 (Meta retries later) instead of filling Redis.
  WEBHOOK_INBOX_MAX: wholeNumber(1).default(DEFAULT_WEBHOOK_INBOX_MAX),
  // `serve` forwards every accepted Meta webhook to these, byte for byte, re-signed: `URL|SECRET,URL` (src/config/relay-targets.ts).
  RELAY_WEBHOOKS: parsedBy(parseRelayTargets),
  // Outbound hooks and relayed webhooks: how long a failing delivery is retried before it goes to the dead letters.
  HOOK_RETRY_HOURS: z.coerce
    .number({ error: 'must be a number of hours > 0, e.g. 24' })
    .positive({ error: 'must be a number of hours > 0, e.g. 24' })
    .default(24),
  // This product's public address (https://links.example.com): click-tracked links point at `${PUBLIC_URL}/c/<token>`.
  PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://links.example.com' }).optional(),
  // `serve`'s campaigns page and /queues: HTTP basic auth when a password is set (required to
  // bind a non-loopback --host). The user name cannot hold ':' (basic auth splits there).
  DASHBOARD_USER: z
    .string()
    .regex(/^[\x21-\x39\x3B-\x7E]+$/, 'must be one word of printable characters without ":"')
    .default('admin'),
  DASHBOARD_PASSWORD: z
    .string()
    .regex(/^[^\r\n]+$/, 'must be one line (no line breaks)')
    .optional(),
  // The sandbox (`campaign sandbox`, `campaign demo`, tests) captures every request on Meta's
  // routes, its answers and its webhooks as NDJSON in this directory; unset, it captures nothing.
  SANDBOX_REQUEST_LOG: z.string().min(1).optional(),
});

type Env = z.infer<typeof envSchema>;

/** Every environment variable the schema reads, in its order (docs/configuration.md and .env.example list the same). */
export const ENV_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export interface Config {
  redisUrl: string;
  /** REDIS_CLUSTER_NODES: the cluster's seed nodes; undefined = one Redis at redisUrl. */
  redisClusterNodes: ClusterNode[] | undefined;
  /** REDIS_WAIT_REPLICAS: replicas a claim must reach before its send leaves; 0 = off. */
  redisWaitReplicas: number;
  api: { baseUrl: string; version: string; timeoutMs: number };
  phoneNumberId: string | undefined;
  accessToken: Secret | undefined;
  templates: { businessAccountId: string | undefined; file: string | undefined; refreshMs: number };
  /** RATE_CARD_FILE: the rate card's path; undefined = the shipped example (src/pricing/rate-card.ts). */
  rateCardFile: string | undefined;
  /**
   * `rate`: SEND_RATE, every number's default; `rates`: SEND_RATES, a number's own rate (see
   * sendRateOf); `concurrency`: SEND_CONCURRENCY, undefined = by the number's rate (sendConcurrencyOf).
   */
  send: { rate: number; rates: ReadonlyMap<string, number>; concurrency: number | undefined; attempts: number; backoffMs: number };
  /** Pause a campaign when more than `failureShare` of its last `window` sends failed permanently; window 0 = off. */
  autoPause: { failureShare: number; window: number };
  queuePrefix: string;
  logLevel: Env['LOG_LEVEL'];
  reportsDir: string;
  /** The HTTP API's limits: API_MAX_UPLOAD_BYTES, and API_RATE_LIMIT requests per token per minute. */
  httpApi: { maxUploadBytes: number; requestsPerMinute: number };
  /** Header media: MEDIA_ALLOW_PRIVATE_HOSTS, links may be fetched from any address (src/media/media-fetch.ts). */
  media: { allowPrivateHosts: boolean };
  /** Window of the ALREADY_SENT check, in ms; 0 = off. */
  duplicateWindowMs: number;
  /** Finished campaigns are purged this long after they finish, in ms; 0 = never on its own. */
  retentionMs: number;
  /** AUDIENCE_RETENTION_DAYS: an audience not imported into for this long is deleted, in ms; undefined = kept. */
  audienceRetentionMs: number | undefined;
  /** FREQUENCY_CAPS: per recipient and portfolio, checked at each row's claim; empty = none. */
  frequencyCaps: readonly FrequencyCap[];
  /** /metrics: a finished campaign's series are dropped this long after it finishes, in ms. */
  metricsRetentionMs: number;
  /** How long an in-doubt row waits for a status webhook before the resend rule decides it, in ms; 0 = off. */
  confirmWindowMs: number;
  /** How long a `held` row waits for its status webhook before it ends `unknown`, in ms (HELD_PATIENCE_HOURS). */
  heldPatienceMs: number;
  /**
   * MESSAGING_LIMITS: portfolio → unique users per moving 24 h, or 'unlimited'; a portfolio not
   * named reads its limit from the API (messagingLimitOf gives a number's).
   */
  messagingLimits: ReadonlyMap<string, MessagingLimit>;
  /** PORTFOLIOS: phone-number ID → business portfolio; a number not named is in `default` (src/portfolios/portfolios.ts). */
  portfolios: PortfolioAssignments;
  /** `campaign serve`: app secrets signatures are checked with (any one may match: rotation), and the handshake token. */
  /** `inboxMax`: WEBHOOK_INBOX_MAX, the entries the webhook inbox may hold unconsumed (503 beyond). */
  webhook: { appSecrets: Secret[]; verifyToken: Secret | undefined; optOutKeywords: string[]; parkMs: number; inboxMax: number };
  /** `campaign serve`'s campaigns page and /queues: basic auth with these when `password` is set. */
  dashboard: { user: string; password: Secret | undefined };
  /** SANDBOX_REQUEST_LOG: where the sandbox captures its exchanges and webhooks; undefined = nowhere. */
  sandboxRequestLog: string | undefined;
  /** RELAY_WEBHOOKS: where `serve` forwards every accepted Meta webhook; empty = nowhere. */
  relayTargets: readonly RelayTarget[];
  /** HOOK_RETRY_HOURS in ms: how long a failing hook or relay delivery is retried before it is dead. */
  hookRetryMs: number;
  /** PUBLIC_URL without a trailing slash: where click-tracked links point; undefined = clicks cannot be tracked. */
  publicUrl: string | undefined;
}

/** Settings a command cannot run without (the worker needs the token, `send` the number, `serve` the webhook secrets). */
export type RequiredSetting = 'WHATSAPP_PHONE_NUMBER_ID' | 'WHATSAPP_ACCESS_TOKEN' | 'WHATSAPP_APP_SECRET' | 'WEBHOOK_VERIFY_TOKEN';

export function loadConfig(env: Record<string, string | undefined> = process.env, required: readonly RequiredSetting[] = []): Config {
  // Empty or blank values (VAR= in a .env file) mean "not set", so defaults apply.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = envSchema.safeParse(present);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      // The value is never echoed: it may be the token.
      problems.push(`${issue.path.join('.')}: ${issue.message}`);
    }
  }
  for (const name of required) {
    if (present[name] === undefined) problems.push(`${name}: required for this command but not set`);
  }
  const limits = parsed.success ? parsePortfolioLimits(parsed.data.MESSAGING_LIMITS ?? '', parsed.data.PORTFOLIOS ?? new Map()) : new Map();
  if (typeof limits === 'string') problems.push(`MESSAGING_LIMITS: ${limits}`);
  if (!parsed.success || problems.length > 0 || typeof limits === 'string') {
    throw new AppError('CONFIG_INVALID', `Invalid configuration (see .env.example):\n  - ${problems.join('\n  - ')}`);
  }
  const e = parsed.data;
  return {
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES,
    redisWaitReplicas: e.REDIS_WAIT_REPLICAS,
    api: { baseUrl: e.WHATSAPP_API_URL.replace(/\/+$/, ''), version: e.WHATSAPP_API_VERSION, timeoutMs: e.SEND_TIMEOUT_MS },
    phoneNumberId: e.WHATSAPP_PHONE_NUMBER_ID,
    templates: { businessAccountId: e.WHATSAPP_BUSINESS_ACCOUNT_ID, file: e.TEMPLATES_FILE, refreshMs: e.TEMPLATES_REFRESH_SECONDS * 1000 },
    rateCardFile: e.RATE_CARD_FILE,
    accessToken: e.WHATSAPP_ACCESS_TOKEN === undefined ? undefined : new Secret(e.WHATSAPP_ACCESS_TOKEN),
    send: {
      rate: e.SEND_RATE,
      rates: e.SEND_RATES ?? new Map(),
      concurrency: e.SEND_CONCURRENCY,
      attempts: e.SEND_ATTEMPTS,
      backoffMs: e.SEND_BACKOFF_MS,
    },
    autoPause: { failureShare: e.AUTO_PAUSE_FAILURE_SHARE, window: e.AUTO_PAUSE_WINDOW },
    queuePrefix: e.QUEUE_PREFIX,
    messagingLimits: limits,
    portfolios: e.PORTFOLIOS ?? new Map(),
    logLevel: e.LOG_LEVEL,
    reportsDir: e.REPORTS_DIR,
    httpApi: { maxUploadBytes: e.API_MAX_UPLOAD_BYTES, requestsPerMinute: e.API_RATE_LIMIT },
    media: { allowPrivateHosts: e.MEDIA_ALLOW_PRIVATE_HOSTS },
    duplicateWindowMs: Math.round(e.DUPLICATE_WINDOW_HOURS * 3_600_000),
    retentionMs: e.RETENTION_DAYS * 86_400_000,
    audienceRetentionMs: e.AUDIENCE_RETENTION_DAYS === undefined ? undefined : e.AUDIENCE_RETENTION_DAYS * 86_400_000,
    frequencyCaps: e.FREQUENCY_CAPS ?? [],
    metricsRetentionMs: Math.round(e.METRICS_RETENTION_HOURS * 3_600_000),
    confirmWindowMs: e.CONFIRM_WINDOW_SECONDS * 1000,
    heldPatienceMs: Math.round(e.HELD_PATIENCE_HOURS * 3_600_000),
    webhook: {
      appSecrets: (e.WHATSAPP_APP_SECRET ?? []).map((secret) => new Secret(secret)),
      verifyToken: e.WEBHOOK_VERIFY_TOKEN === undefined ? undefined : new Secret(e.WEBHOOK_VERIFY_TOKEN),
      optOutKeywords: e.OPT_OUT_KEYWORDS,
      parkMs: e.WEBHOOK_PARK_SECONDS * 1000,
      inboxMax: e.WEBHOOK_INBOX_MAX,
    },
    dashboard: { user: e.DASHBOARD_USER, password: e.DASHBOARD_PASSWORD === undefined ? undefined : new Secret(e.DASHBOARD_PASSWORD) },
    sandboxRequestLog: e.SANDBOX_REQUEST_LOG,
    relayTargets: e.RELAY_WEBHOOKS ?? [],
    hookRetryMs: Math.round(e.HOOK_RETRY_HOURS * 3_600_000),
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
  };
}

/**
 * SANDBOX_REQUEST_LOG alone, for startSandbox: a sandbox started by a test or the demo reads
 * its default without the rest of the settings (which need not be valid for it). Blank = unset.
 */
export function sandboxRequestLogDir(env: Record<string, string | undefined> = process.env): string | undefined {
  const value = env.SANDBOX_REQUEST_LOG;
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** MESSAGING_LIMITS' limit of a number's portfolio, or undefined when the API gives it. */
export function messagingLimitOf(
  config: Pick<Config, 'messagingLimits' | 'portfolios'>,
  phoneNumberId: string,
): MessagingLimit | undefined {
  return config.messagingLimits.get(portfolioOf(config.portfolios, phoneNumberId));
}

/** A phone number's messages per second: its SEND_RATES entry, else SEND_RATE (0 = unlimited). */
export function sendRateOf(send: Config['send'], phoneNumberId: string): number {
  return send.rates.get(phoneNumberId) ?? send.rate;
}

/**
 * Sends in flight per number when SEND_CONCURRENCY is unset: 50, or half a second of sending
 * when that is more. A send holds its place from its slot to the API's answer, so the rate
 * holds while answers take up to about that long (Meta's usually take 100–300 ms).
 */
export const DEFAULT_SEND_CONCURRENCY = 50;

/**
 * A number's sends in flight in one worker process: SEND_CONCURRENCY, else enough for its
 * rate. Each send waits for its slot in the pacer, so the jobs in flight are the lookahead of
 * the number's sending: at 1,000 msg/s, 50 of them kept it at 982/s; 200 at 996/s
 * (`npm run bench -- --only toptier`, with the pacer's guard at 3 ms).
 */
export function sendConcurrencyOf(send: Config['send'], phoneNumberId: string): number {
  return send.concurrency ?? defaultSendConcurrency(sendRateOf(send, phoneNumberId));
}

/** SEND_CONCURRENCY unset, at `rate` msg/s: 50, or half a second of sending when that is more. */
export function defaultSendConcurrency(rate: number): number {
  return Math.max(DEFAULT_SEND_CONCURRENCY, Math.ceil(rate / 2));
}
