import { userInfo } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCampaignHistory } from '../../src/redis/history/redis-campaign-history.js';
import { runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';

/**
 * `campaign send | pause | resume | reschedule | cancel` as an operator types them: each one that
 * changed the campaign is in its history with the OS user that ran it; one that changed
 * nothing (a pause of a paused campaign) or was refused is not.
 */
describe('the CLI records who created and controlled a campaign', () => {
  const prefix = freshPrefix('cli-history');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  let redis: Redis;
  let history: RedisCampaignHistory;
  const operator = userInfo().username;

  beforeAll(async () => {
    dir = await tempDir();
    redis = new Redis(redisUrl());
    history = new RedisCampaignHistory(redis, prefix);
    env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
      LOG_LEVEL: 'warn',
      REPORTS_DIR: join(dir.dir, 'reports'),
    };
  });

  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
    await dir.cleanup();
  });

  const template = [
    '--template',
    'order_update',
    '--language',
    'en_US',
    '--params',
    'first_name,order_id',
    '--templates',
    SAMPLE_TEMPLATES,
  ];

  async function cli(args: string[]): Promise<void> {
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(0);
    // A history write that failed is a warning: there must be none.
    expect(result.stderr).not.toMatch(/history not recorded/);
  }

  it('send, send again into it, pause (twice), resume and cancel: newest first, as the OS user', async () => {
    const file = join(dir.dir, 'five.csv');
    await writeCampaignCsv(file, 5);
    await cli(['send', file, ...template, '--campaign', 'h-cli', '--json']);
    await cli(['send', file, ...template, '--campaign', 'h-cli', '--json']);
    await cli(['pause', 'h-cli', '--reason', 'price list']);
    await cli(['pause', 'h-cli']);
    await cli(['resume', 'h-cli']);
    await cli(['cancel', 'h-cli']);
    expect((await runCli(['resume', 'h-cli'], env)).code).not.toBe(0);

    const entries = await history.list('h-cli');
    expect(entries.map((e) => [e.action, e.detail])).toStrictEqual([
      ['cancel', '5 rows not yet fed cancelled'],
      ['resume', undefined],
      ['pause', 'price list'],
      ['continue', 'five.csv: 0 rows queued'],
      ['create', 'five.csv: 5 rows queued'],
    ]);
    for (const e of entries) expect(e.actor).toStrictEqual({ kind: 'cli', name: operator });
    expect(entries.map((e) => e.at)).toStrictEqual([...entries.map((e) => e.at)].sort((a, b) => b - a));
  });

  it('reschedule records the new start; a dry run records nothing', async () => {
    const file = join(dir.dir, 'later.csv');
    await writeCampaignCsv(file, 2);
    await cli(['send', file, ...template, '--campaign', 'h-dry', '--dry-run', '--json']);
    expect(await history.list('h-dry')).toStrictEqual([]);
    // Whole seconds, within the default expiry of a campaign starting in two hours.
    const hoursAhead = (hours: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + hours * 3_600_000).toISOString();
    const moved = hoursAhead(3);
    await cli(['send', file, ...template, '--campaign', 'h-later', '--at', hoursAhead(2), '--json']);
    await cli(['reschedule', 'h-later', '--at', moved]);
    expect((await history.list('h-later')).map((e) => [e.action, e.detail])).toStrictEqual([
      ['reschedule', `starts at ${moved}`],
      ['create', 'later.csv: 2 rows queued'],
    ]);
  });
});
