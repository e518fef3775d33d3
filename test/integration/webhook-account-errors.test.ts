import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';
import { postSignedWebhook } from '../support/signed-webhook.js';

/**
 * Account-, app- and system-level problems Meta reports as a `messages` change's `errors[]`
 * (no statuses), through `campaign serve`: each is logged, counted in
 * cw_account_errors_total{phone_number_id,code} and shown on the campaigns page; a code the
 * error policy treats as halting (131031, the business account locked) pauses the unfinished
 * campaigns of that number with the reason, and only those. Meta's own example (130429) is sent
 * byte for byte.
 */
const SECRET = 'account-errors-secret';
const OTHER_NUMBER = '106540352242999';
const META_EXAMPLE = readFileSync(new URL('../fixtures/meta-pages/errors-webhook.rate-limit-130429.json', import.meta.url));

/** Meta's example with another code and number. */
function errorsWebhook(phoneNumberId: string, code: number, title: string, details: string): string {
  const body = JSON.parse(META_EXAMPLE.toString('utf8')) as {
    entry: { changes: { value: { metadata: { phone_number_id: string }; errors: Record<string, unknown>[] } }[] }[];
  };
  const value = body.entry[0]?.changes[0]?.value;
  if (value === undefined) throw new Error('the example has no change');
  value.metadata.phone_number_id = phoneNumberId;
  value.errors = [{ code, title, message: title, error_data: { details } }];
  return JSON.stringify(body);
}

/** Signed with this file's app secret, as Meta signs it. */
function signedPost(url: string, body: string | Buffer): Promise<number> {
  return postSignedWebhook(url, SECRET, body);
}

describe('campaign serve: account errors (a change of errors[])', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  let service: RunningService;

  beforeEach(async () => {
    redis = testRedis();
    prefix = freshPrefix('account-errors');
    ledger = new RedisLedger(redis, prefix);
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', WHATSAPP_APP_SECRET: SECRET, WEBHOOK_VERIFY_TOKEN: 'verify' },
      silentLogger(),
    );
  });

  afterEach(async () => {
    await service.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  async function runningCampaign(id: string, phoneNumberId: string): Promise<void> {
    await ledger.createCampaign({ ...ledgerTestDefinition(id), phoneNumberId });
    await ledger.recordIngested(id, phoneNumberId, [queuedRow(1), queuedRow(2)]);
    await ledger.finishIngest(id);
  }

  async function metric(): Promise<string[]> {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    return text.split('\n').filter((line) => line.startsWith('cw_account_errors_total{'));
  }

  it("a halting code pauses that number's campaigns with the reason; it is counted and shown", async () => {
    await runningCampaign('locked', LEDGER_TEST_NUMBER);
    await runningCampaign('elsewhere', OTHER_NUMBER);
    const body = errorsWebhook(LEDGER_TEST_NUMBER, 131031, 'Business Account locked', 'The account is locked by Meta.');
    expect(await signedPost(service.url, body)).toBe(200);

    const status = await waitFor(() => ledger.status('locked'), { what: 'the campaign paused', until: (s) => s?.state === 'paused' });
    expect(status?.pausedReason).toBe(
      `ACCOUNT_ERROR: Meta reported 131031 for phone number ${LEDGER_TEST_NUMBER}: Business Account locked: The account is locked by Meta.`,
    );
    expect((await ledger.status('elsewhere'))?.state).toBe('running');
    expect(await redis.hget(webhookKeys(prefix).stats, 'ignored')).toBeNull();
    await waitFor(metric, {
      what: 'cw_account_errors_total',
      until: (lines) => lines.includes(`cw_account_errors_total{phone_number_id="${LEDGER_TEST_NUMBER}",code="131031"} 1`),
    });
    const page = await (await fetch(`${service.url}/`)).text();
    expect(page).toContain('Account errors reported by Meta');
    expect(page).toContain('Business Account locked');
    expect(page).toContain('paused this number');

    // The operator fixed it: resume sends again.
    expect(await ledger.resume('locked')).toEqual({ outcome: 'resumed' });
  });

  it("Meta's example (130429, the number's throughput) is recorded and counted, and pauses nothing", async () => {
    await runningCampaign('busy', LEDGER_TEST_NUMBER);
    expect(await signedPost(service.url, META_EXAMPLE)).toBe(200);
    const lines = await waitFor(metric, { what: 'cw_account_errors_total', until: (l) => l.length > 0 });
    expect(lines).toEqual([`cw_account_errors_total{phone_number_id="${LEDGER_TEST_NUMBER}",code="130429"} 1`]);
    expect((await ledger.status('busy'))?.state).toBe('running');
    const page = await (await fetch(`${service.url}/`)).text();
    expect(page).toContain('Rate limit hit');
    expect(page).toContain('too many messages sent from this phone number');
  });
});
