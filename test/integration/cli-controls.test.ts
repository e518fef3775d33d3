import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';

/**
 * `campaign pause | resume | cancel | retry` as an operator types them: what they print, their
 * exit codes, and the stable error codes when the campaign cannot take the command. No worker
 * runs, so the queue holds every job and the ledger alone shows the effect.
 */
describe('campaign controls through the CLI', () => {
  const prefix = freshPrefix('cli-ctl');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  let redis: Redis;

  beforeAll(async () => {
    dir = await tempDir();
    redis = new Redis(redisUrl());
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

  async function status(id: string): Promise<Record<string, unknown>> {
    const result = await runCli(['status', id, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  it('pause shows its reason in status; resume lifts it; cancel cancels every unsent row at once', async () => {
    const file = join(dir.dir, 'ten.csv');
    await writeCampaignCsv(file, 10);
    const send = await runCli(
      [
        'send',
        file,
        '--template',
        'order_update',
        '--language',
        'en_US',
        '--params',
        'first_name,order_id',
        '--templates',
        SAMPLE_TEMPLATES,
        '--campaign',
        'ctl-1',
        '--json',
      ],
      env,
    );
    expect(send.code, send.stderr).toBe(0);

    // No worker runs: the rows wait in the campaign's backlog, and BullMQ holds none of them.
    const backlog = `${prefix}:{106540352242922}:campaign:ctl-1:pending`;
    expect(await redis.llen(backlog)).toBe(10);
    expect(await redis.llen(`${prefix}:{106540352242922}:send-106540352242922:wait`)).toBe(0);
    const pause = await runCli(['pause', 'ctl-1', '--reason', 'waiting for the new price list'], env);
    expect(pause.code, pause.stderr).toBe(0);
    expect(pause.stdout).toMatch(/Campaign ctl-1 paused: no new send starts; `campaign resume ctl-1` continues it/);
    expect(await status('ctl-1')).toMatchObject({ state: 'paused', pausedReason: 'waiting for the new price list', queued: 10 });
    const text = await runCli(['status', 'ctl-1'], env);
    expect(text.stdout).toMatch(/paused since .*: waiting for the new price list/);
    expect(text.stdout).toMatch(/campaign resume ctl-1/);

    const again = await runCli(['pause', 'ctl-1'], env);
    expect(again.stdout).toMatch(/Campaign ctl-1 was already paused/);

    const resume = await runCli(['resume', 'ctl-1'], env);
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toMatch(/Campaign ctl-1 resumed: its rows are fed to the workers again/);
    expect(await redis.llen(backlog)).toBe(10);
    expect(await status('ctl-1')).toMatchObject({ state: 'running', pausedReason: null, queued: 10 });

    const cancel = await runCli(['cancel', 'ctl-1'], env);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toMatch(/Campaign ctl-1 cancelled: 10 rows not yet fed cancelled/);
    expect(await redis.exists(backlog)).toBe(0);
    expect(await status('ctl-1')).toMatchObject({ state: 'cancelled', cancelled: 10, queued: 0, total: 10 });
    // A second cancel changes nothing and says so; it is not an error.
    const cancelledAt = (await status('ctl-1')).finishedAt as string;
    const cancelAgain = await runCli(['cancel', 'ctl-1'], env);
    expect(cancelAgain.code, cancelAgain.stderr).toBe(0);
    expect(cancelAgain.stdout).toBe(`Campaign ctl-1 was already cancelled; it ended at ${cancelledAt}; nothing changed\n`);
    const report = await runCli(['report', 'ctl-1', '--out', join(dir.dir, 'ctl-1.csv')], env);
    expect(report.code, report.stderr).toBe(0);

    // A cancelled campaign stays cancelled.
    for (const args of [
      ['resume', 'ctl-1'],
      ['pause', 'ctl-1'],
      ['retry', 'ctl-1'],
    ]) {
      const refused = await runCli(args, env);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toMatch(/campaign: CAMPAIGN_STATE_CONFLICT: Cannot \w+ campaign ctl-1: it is cancelled/);
    }
  }, 240_000);

  it('every control names a missing campaign and exits 1', async () => {
    for (const command of ['pause', 'resume', 'cancel', 'retry']) {
      const result = await runCli([command, 'no-such-campaign'], env);
      expect(result.code, command).toBe(1);
      expect(result.stderr).toMatch(/campaign: CAMPAIGN_NOT_FOUND: No campaign no-such-campaign under this QUEUE_PREFIX/);
    }
  }, 240_000);
});
