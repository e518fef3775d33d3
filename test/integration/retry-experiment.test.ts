import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryCampaignRoute } from '../../src/api/routes/campaign-control-routes.js';
import { CampaignControls } from '../../src/campaigns/control/campaign-controls.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import type { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { documented } from '../support/api-documented.js';
import { ApiTestService } from '../support/api-service.js';
import { testContext } from '../support/app-context.js';
import { runCli } from '../support/cli-process.js';
import { tempDir } from '../support/csv-files.js';
import { feedAll, LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl } from '../support/redis.js';
import { ledgersPerTest } from '../support/test-ledger.js';

const NUMBER = LEDGER_TEST_NUMBER;

/**
 * Rows 1–4 answered: 1 failed 130472 by the send's answer, 2 accepted and then failed 130472 by
 * status webhook (Meta's usual way), 3 failed 131026, 4 unknown.
 */
async function answered(ledger: RedisLedger, id: string): Promise<void> {
  await ledger.createCampaign({ ...ledgerTestDefinition(id), category: 'MARKETING' });
  await ledger.recordIngested(
    id,
    NUMBER,
    [1, 2, 3, 4].map((row) => queuedRow(row)),
  );
  await ledger.finishIngest(id);
  await feedAll(ledger);
  const job = (row: number) => ({ campaignId: id, row });
  for (const row of [1, 2, 3, 4]) await ledger.claim(job(row), NUMBER);
  await ledger.settle(job(1), { status: 'failed', errorCode: '130472', errorDetail: "User's number is part of an experiment" }, NUMBER);
  await ledger.settle(job(2), { status: 'sent', wamid: `wamid.${id}.2` }, NUMBER);
  await ledger.applyStatuses([
    { phoneNumberId: NUMBER, wamid: `wamid.${id}.2`, kind: 'failed', at: Date.now(), code: '130472', detail: 'experiment' },
  ]);
  await ledger.settle(job(3), { status: 'failed', errorCode: '131026', errorDetail: 'undeliverable' }, NUMBER);
  await ledger.settle(job(4), { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'x' }, NUMBER);
}

async function statuses(ledger: RedisLedger, id: string): Promise<string[]> {
  const rows: RowRecord[] = [];
  for await (const page of ledger.rows(id)) rows.push(...page);
  return rows.map((r) => r.status);
}

describe("`campaign retry` and Meta's experiment (130472), on the ledger (real Redis)", () => {
  const open = ledgersPerTest('retry-experiment');

  it('without --codes it leaves 130472 rows failed and counts them; --unknown alone does not count them', async () => {
    const { ledger } = open();
    await answered(ledger, 'c');
    const controls = new CampaignControls({ ledger });
    expect(await controls.retry('c', { codes: [], failed: false, unknown: true })).toMatchObject({ requeued: 1, experiment: 0 });
    expect(await controls.retry('c', { codes: [], failed: true, unknown: false })).toStrictEqual({
      requeued: 1,
      noPayload: 0,
      held: 0,
      heldUntil: 0,
      usMarketing: 0,
      optedOut: 0,
      experiment: 2,
      paused: false,
    });
    expect(await statuses(ledger, 'c')).toStrictEqual(['failed', 'failed', 'queued', 'queued']);
    // Run again: still left, still said.
    expect(await controls.retry('c', { codes: [], failed: true, unknown: true })).toMatchObject({ requeued: 0, experiment: 2 });
  });

  it('--codes 130472 sends them again (the operator asked), alone or with other codes', async () => {
    const { ledger } = open();
    await answered(ledger, 'c');
    await answered(ledger, 'd');
    const controls = new CampaignControls({ ledger });
    expect(await controls.retry('c', { codes: ['130472'], failed: true, unknown: false })).toMatchObject({ requeued: 2, experiment: 0 });
    expect(await statuses(ledger, 'c')).toStrictEqual(['queued', 'queued', 'failed', 'unknown']);
    expect(await controls.retry('d', { codes: ['131026', '130472'], failed: true, unknown: true })).toMatchObject({
      requeued: 4,
      experiment: 0,
    });
  });
});

describe('`POST /campaigns/{id}/retry` says how many 130472 rows it left', () => {
  const api = new ApiTestService('api-retry-experiment');
  let context: ReturnType<typeof testContext>;

  beforeAll(async () => {
    await api.start({ TEMPLATES_FILE: SAMPLE_TEMPLATES });
    context = testContext(api.prefix, { REPORTS_DIR: api.reportsDir });
  });
  afterAll(async () => {
    await context.redis.quit();
    await api.close();
  });

  const retry = (id: string, body: unknown) =>
    api.call(`/campaigns/${id}/retry`, {
      scope: 'send',
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });

  it('`experiment` counts them without codes; `codes: ["130472"]` requeues them', async () => {
    await answered(context.ledger, 'c-api');
    expect(await documented(retryCampaignRoute, await retry('c-api', {}), 200)).toMatchObject({ requeued: 1, experiment: 2 });
    expect(await documented(retryCampaignRoute, await retry('c-api', { codes: ['130472'] }), 200)).toMatchObject({
      requeued: 2,
      experiment: 0,
    });
  });
});

describe('`campaign retry` prints how many 130472 rows it left (the compiled CLI)', () => {
  const prefix = freshPrefix('cli-retry-experiment');
  let context: ReturnType<typeof testContext>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await tempDir();
    context = testContext(prefix);
    env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn', REPORTS_DIR: join(dir.dir, 'reports') };
  });
  afterAll(async () => {
    await context.close();
    await dir.cleanup();
  });

  it('a line says they were left failed and how to send them anyway', async () => {
    await answered(context.ledger, 'c-cli');
    const result = await runCli(['retry', 'c-cli'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      'Campaign c-cli: 1 rows put back in the queue\n' +
        "  2 rows failed with 130472 (their recipient is part of Meta's experiment) and were left failed: a resend gets the " +
        'same error (`--codes 130472` sends them again anyway)\n',
    );
    const again = await runCli(['retry', 'c-cli', '--codes', '130472'], env);
    expect(again.stdout).toBe('Campaign c-cli: 2 rows put back in the queue\n');
  }, 60_000);
});
