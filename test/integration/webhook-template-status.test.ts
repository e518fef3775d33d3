import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { CliProcess } from '../support/cli-process.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';
import { postSignedWebhook } from '../support/signed-webhook.js';

/**
 * `campaign serve` (a real process) takes Meta's signed `message_template_status_update`
 * webhooks: the campaigns that send the template pause within a second, with a reason
 * `TEMPLATE_PAUSED: …`, and resume on their own when Meta reinstates it; a campaign of another
 * template keeps running, and one the operator paused too stays paused.
 */
const SECRET = 'template-status-app-secret-0123';
const LISTENING = /Webhook service listening on (http:\/\/127\.0\.0\.1:\d+)/;
const WABA = '300000000000003';

/** Meta's webhook for a template's status change (reference cloud-api.md §3.7), for the WABA: no phone number. */
function templateWebhook(event: string, name: string, language: string, reason: string): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: WABA,
        time: Math.floor(Date.now() / 1000),
        changes: [
          {
            field: 'message_template_status_update',
            value: {
              event,
              message_template_id: 987654321,
              message_template_name: name,
              message_template_language: language,
              reason,
            },
          },
        ],
      },
    ],
  });
}

/** Signed with this file's app secret, as Meta signs it. */
function signedPost(url: string, body: string | Buffer): Promise<number> {
  return postSignedWebhook(url, SECRET, body);
}

describe('campaign serve: template status webhooks', () => {
  let cli: CliProcess | undefined;
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('serve-tpl');
    ledger = new RedisLedger(redis, prefix);
  });

  afterEach(async () => {
    await cli?.stop('SIGKILL');
    cli = undefined;
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  async function runningCampaign(id: string, template: { name: string; language: string }): Promise<void> {
    const base = ledgerTestDefinition(id);
    const definition: CampaignDefinition = base.plan === undefined ? base : { ...base, plan: { ...base.plan, ...template } };
    await ledger.createCampaign(definition);
    await ledger.recordIngested(id, LEDGER_TEST_NUMBER, [queuedRow(1), queuedRow(2)]);
    await ledger.finishIngest(id);
  }

  it('PAUSED pauses the campaigns of that template within a second; REINSTATED resumes those only the template held', async () => {
    const x = { name: 'order_update', language: 'en_US' };
    await runningCampaign('x-1', x);
    await runningCampaign('x-2', x);
    await runningCampaign('y', { name: 'promo', language: 'en_US' });
    cli = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_APP_SECRET: SECRET,
      WEBHOOK_VERIFY_TOKEN: 'verify-token',
      LOG_LEVEL: 'info',
    });
    const url = (await cli.waitFor(LISTENING))[1] ?? '';

    expect(await signedPost(url, templateWebhook('PAUSED', x.name, x.language, 'LOW_QUALITY'))).toBe(200);
    const bothPaused = async () => Promise.all(['x-1', 'x-2'].map(async (id) => (await ledger.status(id))?.state));
    await waitFor(bothPaused, {
      what: 'both campaigns of the template paused',
      until: (s) => s.every((v) => v === 'paused'),
      timeoutMs: 1000,
    });
    for (const id of ['x-1', 'x-2']) {
      expect((await ledger.status(id))?.pausedReason).toBe('TEMPLATE_PAUSED: PAUSED order_update (en_US): LOW_QUALITY');
    }
    expect((await ledger.status('y'))?.state).toBe('running');

    // The operator pauses one of them as well: that pause outlives the template's reinstatement.
    expect(await ledger.pause('x-2', 'paused by the operator')).toEqual({ outcome: 'paused' });

    expect(await signedPost(url, templateWebhook('REINSTATED', x.name, x.language, 'NONE'))).toBe(200);
    await waitFor(async () => (await ledger.status('x-1'))?.state, { what: 'x-1 resumed', until: (s) => s === 'running', timeoutMs: 1000 });
    expect(await ledger.status('x-2')).toMatchObject({ state: 'paused', pausedReason: 'paused by the operator' });
    expect((await ledger.status('y'))?.state).toBe('running');
    await cli.waitFor(/template order_update \(en_US\): REINSTATED/);
  });

  it('Meta writes the language en-US in template webhooks: it pauses and resumes the en_US campaign all the same', async () => {
    const template = { name: 'order_update', language: 'en_US' };
    await runningCampaign('dash', template);
    cli = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_APP_SECRET: SECRET,
      WEBHOOK_VERIFY_TOKEN: 'verify-token',
      LOG_LEVEL: 'info',
    });
    const url = (await cli.waitFor(LISTENING))[1] ?? '';

    expect(await signedPost(url, templateWebhook('PAUSED', template.name, 'en-US', 'LOW_QUALITY'))).toBe(200);
    await waitFor(async () => (await ledger.status('dash'))?.state, { what: 'paused', until: (s) => s === 'paused', timeoutMs: 1000 });
    expect((await ledger.status('dash'))?.pausedReason).toBe('TEMPLATE_PAUSED: PAUSED order_update (en-US): LOW_QUALITY');

    expect(await signedPost(url, templateWebhook('REINSTATED', template.name, 'en-US', 'NONE'))).toBe(200);
    await waitFor(async () => (await ledger.status('dash'))?.state, { what: 'resumed', until: (s) => s === 'running', timeoutMs: 1000 });
  });
});
