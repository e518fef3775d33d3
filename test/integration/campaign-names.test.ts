import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';

/**
 * A campaign's name as an operator meets it: given with `send --name` (or taken from the
 * file's name), checked before anything is created, kept by `--campaign`, shown by `status`,
 * `list` and the campaigns pages (escaped), and in the report's file name. A campaign stored
 * without a name is shown by its ID. No worker runs: a cancelled campaign is finished at once.
 */
const SEND = ['--template', 'order_update', '--language', 'en_US', '--params', 'first_name,order_id', '--templates', SAMPLE_TEMPLATES];
const HOSTILE_NAME = '=HYPERLINK("http://evil.example","x") <b>Promo</b> & \'more\'';
const HOSTILE_ESCAPED = '=HYPERLINK(&quot;http://evil.example&quot;,&quot;x&quot;) &lt;b&gt;Promo&lt;/b&gt; &amp; &#39;more&#39;';
const HOSTILE_FILE = 'names-given-hyperlink-http-evil-example-x-b-promo-b.csv';

interface StatusJson {
  id: string;
  name: string | null;
}

describe('campaign names', () => {
  const prefix = freshPrefix('campaign-names');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  let redis: Redis;
  let service: RunningService | undefined;
  const reports = () => join(dir.dir, 'reports');
  const status = async (id: string) => JSON.parse((await runCli(['status', id, '--json'], env)).stdout) as StatusJson;

  beforeAll(async () => {
    dir = await tempDir();
    redis = testRedis();
    env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
      LOG_LEVEL: 'warn',
      REPORTS_DIR: reports(),
    };
  });

  afterAll(async () => {
    await service?.close();
    await removePrefix(redis, prefix);
    redis.disconnect();
    await dir.cleanup();
  });

  it('refuses a name too long or with a control character before anything is created, naming --name', async () => {
    const file = join(dir.dir, 'refused.csv');
    await writeCampaignCsv(file, 3);
    for (const [name, text, code] of [
      ['x'.repeat(101), 'the campaign name has 101 characters; give at most 100', 'OPTION_INVALID'],
      [
        'spring\u001b]8;;http://evil\u0007',
        'the campaign name contains a control character, invisible in most editors (U+001B ESC at character 7)',
        'TEXT_CONTROL_CHARACTER',
      ],
      ['   ', 'the campaign name is empty or only spaces and invisible characters', 'OPTION_INVALID'],
    ] as const) {
      const send = await runCli(['send', file, ...SEND, '--campaign', 'names-refused', '--name', name], env);
      expect(send.code).toBe(2);
      expect(send.stderr.split('\n')[0]).toBe(`campaign: ${code}: --name: ${text}`);
    }
    expect((await runCli(['status', 'names-refused'], env)).code).toBe(1);
  });

  it('--name is shown by status and list, kept as text, and names the report file (a slug after the ID)', async () => {
    const file = join(dir.dir, 'given.csv');
    await writeCampaignCsv(file, 4);
    const send = await runCli(['send', file, ...SEND, '--campaign', 'names-given', '--name', `  ${HOSTILE_NAME}  `, '--json'], env);
    expect(send.code, send.stderr).toBe(0);
    expect((await runCli(['cancel', 'names-given'], env)).code).toBe(0);

    expect(await status('names-given')).toMatchObject({ id: 'names-given', name: HOSTILE_NAME });
    const text = await runCli(['status', 'names-given'], env);
    expect(text.stdout.split('\n')[0]).toBe(`Campaign names-given "${HOSTILE_NAME}": cancelled`);
    const list = JSON.parse((await runCli(['list', '--json'], env)).stdout) as StatusJson[];
    expect(list.find((c) => c.id === 'names-given')?.name).toBe(HOSTILE_NAME);
    expect((await runCli(['list'], env)).stdout).toContain(`Campaign names-given "${HOSTILE_NAME}": cancelled`);

    const report = await runCli(['report', 'names-given'], env);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toBe(`${join(reports(), HOSTILE_FILE)} (4 rows)\n`);
    expect((await readFile(join(reports(), HOSTILE_FILE), 'utf8')).split('\n')[0]).toMatch(/^row,phone,/);
  });

  it("without --name, the file's name; --campaign keeps the first name whatever --name it is given", async () => {
    const file = join(dir.dir, 'spring-promo.csv');
    await writeCampaignCsv(file, 3);
    expect((await runCli(['send', file, ...SEND, '--campaign', 'names-default', '--json'], env)).code).toBe(0);
    expect((await status('names-default')).name).toBe('spring-promo');

    const again = await runCli(['send', file, ...SEND, '--campaign', 'names-default', '--name', 'Another name', '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { name: string }).name).toBe('spring-promo');
    const text = await runCli(['send', file, ...SEND, '--campaign', 'names-default', '--name', 'Another name'], env);
    expect(text.stdout.split('\n')[0]).toBe(
      'Campaign names-default "spring-promo": 3 rows read, 0 queued, 0 rejected, 0 skipped, ' +
        '3 already in the campaign and kept as they were (3 queued)',
    );
    expect((await status('names-default')).name).toBe('spring-promo');

    expect((await runCli(['cancel', 'names-default'], env)).code).toBe(0);
    expect((await runCli(['report', 'names-default'], env)).stdout).toBe(`${join(reports(), 'names-default-spring-promo.csv')} (3 rows)\n`);
    expect((await runCli(['report', 'names-default', '--out', '-'], env)).stdout.split('\n')[0]).toMatch(/^row,phone,/);
  });

  it('a campaign stored without a name: null in status, the ID alone in the text, the report named by its ID', async () => {
    await new RedisLedger(redis, prefix).createCampaign(ledgerTestDefinition('names-old'));
    expect((await status('names-old')).name).toBeNull();
    expect((await runCli(['status', 'names-old'], env)).stdout.split('\n')[0]).toMatch(/^Campaign names-old: /);
    const report = await runCli(['report', 'names-old'], env);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toBe(`${join(reports(), 'names-old.csv')} (0 rows)\n`);
    expect(existsSync(join(reports(), 'names-old.csv'))).toBe(true);
    expect((await readdir(reports())).filter((f) => f.startsWith('names-old'))).toEqual(['names-old.csv']);
  });

  it('the campaigns pages show the name escaped, the ID beside it, and download the report under its file name', async () => {
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', WHATSAPP_APP_SECRET: 's', WEBHOOK_VERIFY_TOKEN: 'v' },
      silentLogger(),
    );
    const list = await (await fetch(`${service.url}/`)).text();
    expect(list).not.toContain('<b>Promo');
    expect(list).toContain(`<a href="/campaigns/names-given" class="name">${HOSTILE_ESCAPED}</a><div class="sub">names-given</div>`);
    expect(list).toContain('<a href="/campaigns/names-default" class="name">spring-promo</a>');
    expect(list).toContain('<a href="/campaigns/names-old">names-old</a>');
    const json = (await (await fetch(`${service.url}/api/campaigns`)).json()) as { campaigns: { id: string; name: string }[] };
    expect(json.campaigns.find((c) => c.id === 'names-given')?.name).toBe(HOSTILE_NAME);

    const page = await (await fetch(`${service.url}/campaigns/names-given`)).text();
    expect(page).not.toContain('<b>Promo');
    expect(page).toContain(`<h1>${HOSTILE_ESCAPED} <span class="state">`);
    expect(page).toContain('<dt>Campaign ID</dt><dd>names-given</dd>');
    expect(await (await fetch(`${service.url}/campaigns/names-old`)).text()).toContain('<h1>names-old <span class="state">');

    const download = await fetch(`${service.url}/campaigns/names-given/report.csv`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${HOSTILE_FILE}"`);
    expect(await download.text()).toBe(await readFile(join(reports(), HOSTILE_FILE), 'utf8'));
  });
});
