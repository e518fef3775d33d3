import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { pattern } from '../support/long-pattern.js';

/**
 * `campaign report` as an operator runs it: to stdout with `--out -`, replacing a report only
 * with a complete one, and never over the report saved before a purge (whose rows are gone).
 * No worker runs: a campaign cancelled before any row was fed finishes at once, so it can be
 * purged.
 */
const SEND = ['--template', 'order_update', '--language', 'en_US', '--params', 'first_name,order_id', '--templates', SAMPLE_TEMPLATES];

describe('campaign report', () => {
  const prefix = freshPrefix('cli-report');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  const reports = () => join(dir.dir, 'reports');

  beforeAll(async () => {
    dir = await tempDir();
    env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
      LOG_LEVEL: 'warn',
      REPORTS_DIR: reports(),
    };
  });

  afterAll(async () => {
    const redis = testRedis();
    await removePrefix(redis, prefix);
    await redis.quit();
    await dir.cleanup();
  });

  /** A campaign of `rows` rows, cancelled before any was fed: finished, every row `cancelled`. */
  async function finishedCampaign(id: string, rows: number): Promise<void> {
    const file = join(dir.dir, `${id}.csv`);
    await writeCampaignCsv(file, rows);
    const send = await runCli(['send', file, ...SEND, '--campaign', id, '--json'], env);
    expect(send.code, send.stderr).toBe(0);
    const cancel = await runCli(['cancel', id], env);
    expect(cancel.code, cancel.stderr).toBe(0);
  }

  it('--out - writes the CSV to stdout, and nothing else: the same bytes as the file, no file named "-"', async () => {
    await finishedCampaign('rep-out', 40);
    const toFile = await runCli(['report', 'rep-out'], env);
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stdout).toBe(`${join(reports(), 'rep-out.csv')} (40 rows)\n`);

    const toStdout = await runCli(['report', 'rep-out', '--out', '-'], env);
    expect(toStdout.code, toStdout.stderr).toBe(0);
    expect(toStdout.stderr).toBe('');
    expect(toStdout.stdout).toBe(await readFile(join(reports(), 'rep-out.csv'), 'utf8'));
    expect(toStdout.stdout.split('\n')[0]).toBe(
      'row,phone,user_id,status,message_id,error_code,error_detail,attempts,delivered_at,read_at,' +
        'reply_payload,flow_response,pricing_category,clicked_at,clicks',
    );
    expect(toStdout.stdout.trimEnd().split('\n')).toHaveLength(41);
    expect(existsSync(join(process.cwd(), '-'))).toBe(false);
  });

  it('a report written again replaces the file, with no temporary file left beside it', async () => {
    await finishedCampaign('rep-again', 5);
    for (let run = 0; run < 2; run++) {
      const result = await runCli(['report', 'rep-again', '--out', join(dir.dir, 'again', 'rep-again.csv')], env);
      expect(result.code, result.stderr).toBe(0);
    }
    expect(await readdir(join(dir.dir, 'again'))).toEqual(['rep-again.csv']);
    expect((await readFile(join(dir.dir, 'again', 'rep-again.csv'), 'utf8')).trimEnd().split('\n')).toHaveLength(6);
  });

  it('after purge: report is refused with CAMPAIGN_PURGED naming the saved report, which stays as it was; so is retry', async () => {
    await finishedCampaign('rep-purged', 300);
    const saved = join(reports(), 'rep-purged.csv');
    expect((await runCli(['report', 'rep-purged'], env)).stdout).toBe(`${saved} (300 rows)\n`);
    const before = await readFile(saved, 'utf8');
    expect(before.trimEnd().split('\n')).toHaveLength(301);

    const purge = await runCli(['purge', 'rep-purged'], env);
    expect(purge.code, purge.stderr).toBe(0);
    const purgedAt = (JSON.parse((await runCli(['status', 'rep-purged', '--json'], env)).stdout) as { purgedAt: string }).purgedAt;

    for (const args of [
      ['report', 'rep-purged'],
      ['report', 'rep-purged', '--out', '-'],
      ['report', 'rep-purged', '--out', saved],
    ]) {
      const refused = await runCli(args, env);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        `campaign: CAMPAIGN_PURGED: Campaign rep-purged was purged at ${purgedAt}: its rows are ` +
          `gone, so a report now would be empty and none is written. ` +
          `Its report saved before the purge is ${saved} (left as it was).\n`,
      );
    }
    expect((await readFile(saved, 'utf8')) === before, 'the saved report is unchanged').toBe(true);
    expect((await readdir(reports())).filter((name) => name.startsWith('rep-purged') || name.endsWith('.tmp'))).toEqual(['rep-purged.csv']);

    const retry = await runCli(['retry', 'rep-purged'], env);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toMatch(
      pattern(
        /^campaign: CAMPAIGN_PURGED: Cannot retry campaign rep-purged: it was purged at/,
        / .*, so its rows \(numbers and values\) are gone and there is nothing to send again/,
      ),
    );
    expect(retry.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('after purge with no report saved: refused, saying none was saved', async () => {
    await finishedCampaign('rep-unsaved', 3);
    expect((await runCli(['purge', 'rep-unsaved'], env)).code).toBe(0);
    const refused = await runCli(['report', 'rep-unsaved'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      pattern(
        /^campaign: CAMPAIGN_PURGED: Campaign rep-unsaved was purged at .*: its rows are gone, so a report now would be empty and/,
        / none is written\. No report of it was saved at .*rep-unsaved\.csv; `campaign status rep-unsaved` still shows its counts\.\n$/,
      ),
    );
    expect(existsSync(join(reports(), 'rep-unsaved.csv'))).toBe(false);
  });
});
