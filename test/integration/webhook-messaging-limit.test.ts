import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { portfolioLimitKeys } from '../../src/redis/pacer/portfolio-limit-keys.js';
import { DEFAULT_PORTFOLIO } from '../../src/portfolios/portfolios.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { CliProcess } from '../support/cli-process.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';
import { postSignedWebhook } from '../support/signed-webhook.js';

/**
 * `campaign serve` (a real process) takes the webhooks that change a portfolio's messaging
 * limit: `business_capability_update` stores the limit it says for the portfolio, and the next
 * feed of any of its numbers holds back what goes past it; `account_update` makes it read the
 * limit again from the API (the sandbox here), within seconds instead of the 15-minute read.
 */
const SECRET = 'limit-webhook-app-secret-0123';
const TOKEN = 'limit-webhook-token';
const LISTENING = /Webhook service listening on (http:\/\/127\.0\.0\.1:\d+)/;
const WABA = '300000000000003';

/** An account-level webhook (no metadata, no phone number): entry.id is the WABA. */
function accountWebhook(field: string, value: Record<string, unknown>): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: WABA, time: Math.floor(Date.now() / 1000), changes: [{ field, value }] }],
  });
}

/** Signed with this file's app secret, as Meta signs it. */
function signedPost(url: string, body: string | Buffer): Promise<number> {
  return postSignedWebhook(url, SECRET, body);
}

describe('campaign serve: messaging-limit webhooks', () => {
  let cli: CliProcess | undefined;
  let sandbox: Sandbox | undefined;
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('serve-limit');
    ledger = new RedisLedger(redis, prefix);
  });

  afterEach(async () => {
    await cli?.stop('SIGKILL');
    cli = undefined;
    await sandbox?.close();
    sandbox = undefined;
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  const storedLimit = () => redis.get(portfolioLimitKeys(prefix, DEFAULT_PORTFOLIO).limit);

  it('business_capability_update: the portfolio limit it says is what the next feed holds to; account_update reads it again', async () => {
    // A campaign of 300 rows: its number is the one (default) portfolio's.
    await ledger.createCampaign(ledgerTestDefinition('c'));
    await ledger.recordIngested(
      'c',
      LEDGER_TEST_NUMBER,
      Array.from({ length: 300 }, (_, i) => queuedRow(i + 1)),
    );
    await ledger.finishIngest('c');
    sandbox = await startSandbox({ templates: [], accessToken: TOKEN, messagingLimitTier: 'TIER_10K' });
    cli = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_APP_SECRET: SECRET,
      WEBHOOK_VERIFY_TOKEN: 'verify-token',
      WHATSAPP_ACCESS_TOKEN: TOKEN,
      WHATSAPP_API_URL: sandbox.url,
      LOG_LEVEL: 'info',
    });
    const url = (await cli.waitFor(LISTENING))[1] ?? '';

    const capability = accountWebhook('business_capability_update', {
      max_daily_conversations_per_business: 250,
      max_phone_numbers_per_business: 2,
    });
    expect(await signedPost(url, capability)).toBe(200);
    await waitFor(storedLimit, { what: 'the limit stored for the portfolio', until: (v) => v === '250', timeoutMs: 1000 });
    const fed = await ledger.feed(LEDGER_TEST_NUMBER, { windowSize: 1000, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
    expect(fed.jobs).toHaveLength(250);
    expect(fed.limitHeld).toMatchObject({ limit: 250, reached: 250 });

    // account_update: serve asks the API (TIER_10K on the sandbox's numbers) and stores its answer.
    expect(await signedPost(url, accountWebhook('account_update', { event: 'ACCOUNT_UPDATE' }))).toBe(200);
    await waitFor(storedLimit, { what: 'the limit read again after account_update', until: (v) => v === '10000', timeoutMs: 5000 });
    await cli.waitFor(/messaging limit of portfolio default: 10000 \(read after a webhook\)/);
    // Both counted by their field on /metrics.
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('cw_webhook_events_total{kind="business_capability_update"} 1');
    expect(metrics).toContain('cw_webhook_events_total{kind="account_update"} 1');
    const rest = await ledger.feed(LEDGER_TEST_NUMBER, { windowSize: 1000, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
    expect(rest.jobs).toHaveLength(50);
  });
});
