import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app/app-context.js';
import { ApiTestService } from '../support/api-service.js';
import { testContext } from '../support/app-context.js';
import { runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { redisUrl } from '../support/redis.js';

/**
 * Every list of campaigns is newest first by creation time: `campaign list`, `GET /api/v1/campaigns` (page by page) and the
 * campaigns page agree, for campaigns made by `campaign send` within the same minute (their IDs differ only in random
 * hex) and for stored ones whose IDs sort against their creation (an ID given with --campaign, hex out of order).
 */
const SEND = ['--template', 'order_update', '--language', 'en_US', '--params', 'first_name,order_id', '--templates', SAMPLE_TEMPLATES];
const MINUTE = 60_000;

describe('campaigns are listed newest first everywhere', () => {
  const api = new ApiTestService('campaign-order');
  let context: AppContext;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let cliEnv: Record<string, string>;
  /** Every campaign, newest first, as made below. */
  const newestFirst: string[] = [];

  beforeAll(async () => {
    await api.start({ TEMPLATES_FILE: SAMPLE_TEMPLATES });
    context = testContext(api.prefix, { REPORTS_DIR: api.reportsDir });
    dir = await tempDir();
    cliEnv = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: api.prefix,
      LOG_LEVEL: 'warn',
      REPORTS_DIR: api.reportsDir,
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
    };
    // Stored a minute before, all in one minute: IDs that sort against their creation time.
    const minute = Math.floor(Date.now() / MINUTE) * MINUTE - MINUTE;
    const stored: [string, number][] = [
      ['c20261125-1747-ffffff', minute + 1_000],
      ['spring', minute + 2_000],
      ['c20261125-1747-000001', minute + 3_000],
    ];
    for (const [id, createdAt] of stored) await context.ledger.createCampaign({ ...ledgerTestDefinition(id), createdAt });
    newestFirst.unshift(...stored.map(([id]) => id).reverse());
    // Made by `campaign send`, one after the other, within seconds: generated IDs of (almost always) the same minute.
    const file = join(dir.dir, 'order.csv');
    await writeCampaignCsv(file, 2);
    for (let i = 0; i < 4; i++) {
      const send = await runCli(['send', file, ...SEND, '--json'], cliEnv);
      expect(send.code, send.stderr).toBe(0);
      newestFirst.unshift((JSON.parse(send.stdout) as { id: string }).id);
    }
  });
  afterAll(async () => {
    await context.redis.quit();
    await api.close();
    await dir.cleanup();
  });

  it('`campaign list` and `list --json`', async () => {
    const json = await runCli(['list', '--json'], cliEnv);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { id: string }[]).map((c) => c.id)).toStrictEqual(newestFirst);
    const text = await runCli(['list'], cliEnv);
    const ids = [...text.stdout.matchAll(/^Campaign ([^\s:]+)/gm)].map((m) => m[1]);
    expect(ids).toStrictEqual(newestFirst);
  });

  it('GET /api/v1/campaigns, whole and two at a time', async () => {
    const whole = (await (await api.call('/campaigns', { scope: 'read' })).json()) as { campaigns: { id: string }[] };
    expect(whole.campaigns.map((c) => c.id)).toStrictEqual(newestFirst);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = (await (await api.call(`/campaigns?limit=2${query}`, { scope: 'read' })).json()) as {
        campaigns: { id: string }[];
        nextCursor: string | null;
      };
      paged.push(...page.campaigns.map((c) => c.id));
      cursor = page.nextCursor;
    } while (cursor !== null && paged.length <= newestFirst.length);
    expect(paged).toStrictEqual(newestFirst);
    expect(api.checkAnswers()).toStrictEqual([]);
  });

  it('the campaigns page', async () => {
    const page = await (await fetch(`${api.service!.url}/`)).text();
    const links = [...page.matchAll(/href="\/campaigns\/([^"/?#]+)"/g)].map((m) => decodeURIComponent(m[1] ?? ''));
    expect([...new Set(links)].filter((id) => newestFirst.includes(id))).toStrictEqual(newestFirst);
  });

  it('of campaigns created in the same millisecond, the greater ID first, in the CLI and the API alike', async () => {
    const at = Date.now() + MINUTE;
    for (const id of ['tie-a', 'tie-b']) await context.ledger.createCampaign({ ...ledgerTestDefinition(id), createdAt: at });
    const cli = JSON.parse((await runCli(['list', '--json'], cliEnv)).stdout) as { id: string }[];
    const answer = (await (await api.call('/campaigns', { scope: 'read' })).json()) as { campaigns: { id: string }[] };
    expect(cli.map((c) => c.id)).toStrictEqual(['tie-b', 'tie-a', ...newestFirst]);
    expect(answer.campaigns.map((c) => c.id)).toStrictEqual(['tie-b', 'tie-a', ...newestFirst]);
  });
});
