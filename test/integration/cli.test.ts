import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';

/**
 * The product driven only through its CLI, each part its own process, as an operator runs it:
 * `campaign sandbox`, `campaign worker`, `campaign send`, `campaign status --json`, `campaign report`.
 * The sandbox is Meta-strict (80 msg/s per number) and the worker runs at SEND_RATE=80.
 */
describe('campaign CLI, end to end', () => {
  const prefix = freshPrefix('cli');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let sandbox: CliProcess;
  let worker: CliProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await tempDir();
    env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_ACCESS_TOKEN: 'cli-test-token',
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
      SEND_RATE: '80',
      LOG_LEVEL: 'info',
      REPORTS_DIR: join(dir.dir, 'reports'),
    };
    sandbox = new CliProcess(['sandbox', '--port', '0', '--templates', SAMPLE_TEMPLATES], env);
    const [, url] = await sandbox.waitFor(/listening on (http:\/\/\S+)/);
    env.WHATSAPP_API_URL = url ?? '';
  });

  afterAll(async () => {
    await worker?.stop();
    await sandbox.stop();
    const redis = new Redis(redisUrl());
    await removePrefix(redis, prefix);
    await redis.quit();
    await dir.cleanup();
  });

  it('sends 1,000 rows; status ends completed; every report message_id is what the API returned', async () => {
    const file = join(dir.dir, 'thousand.csv');
    await writeCampaignCsv(file, 1000, [',NoPhone,A-x', '+4915110000001,Dup,A-dup']);

    worker = new CliProcess(['worker'], env);
    await worker.waitFor(/send worker started/);

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
        '--json',
      ],
      env,
    );
    expect(send.code, send.stderr).toBe(0);
    const summary = JSON.parse(send.stdout) as { id: string; rows: number; queued: number; rejected: number; skipped: number };
    expect(summary).toMatchObject({ rows: 1002, queued: 1000, rejected: 1, skipped: 1 });

    await worker.waitFor(new RegExp(`"campaignId":"${summary.id}".*"msg":"campaign completed"`));

    const status = await runCli(['status', summary.id, '--json'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      state: 'completed',
      total: 1002,
      queued: 0,
      sent: 1000,
      failed: 0,
      rejected: 1,
      skipped: 1,
    });

    const out = join(dir.dir, 'report.csv');
    const report = await runCli(['report', summary.id, '--out', out], env);
    expect(report.code, report.stderr).toBe(0);
    const lines = (await readFile(out, 'utf8')).trim().split('\n');
    expect(lines[0]).toBe(
      'row,phone,user_id,status,message_id,error_code,error_detail,attempts,delivered_at,read_at,' +
        'reply_payload,flow_response,pricing_category,clicked_at,clicks',
    );
    const rows = lines.slice(1).map((line) => line.split(','));
    expect(rows).toHaveLength(1002);
    expect(rows.map((r) => Number(r[0]))).toEqual(Array.from({ length: 1002 }, (_, i) => i + 1));

    const accepted = (await (await fetch(`${env.WHATSAPP_API_URL}/_sandbox/accepted`)).json()) as { wamid: string; to: string }[];
    const toByWamid = new Map(accepted.map((m) => [m.wamid, m.to]));
    // row, phone, user_id, status, message_id, …
    const sent = rows.filter((r) => r[3] === 'sent');
    expect(sent).toHaveLength(1000);
    expect(new Set(sent.map((r) => r[4])).size).toBe(1000);
    for (const r of sent) expect(toByWamid.get(r[4] ?? '')).toBe(r[1]);
    expect(accepted).toHaveLength(1000);

    // How evenly the sends reached the strict sandbox depends on the machine's load: that is
    // `npm run bench`'s figure. The pacer's own ceiling is tested in send-pacer.test.ts.
    // The token never reaches any output.
    expect(worker.output + send.stdout + send.stderr).not.toContain('cli-test-token');
    // Four processes (worker, send, status, report) and a 13 s campaign: 20 s on an idle machine,
    // minutes when two suites share two cores. The limit catches a hang, not a slow machine.
  }, 240_000);

  it('refuses a campaign whose columns are not in the file, and enqueues nothing', async () => {
    const file = join(dir.dir, 'bad-header.csv');
    await writeCampaignCsv(file, 3);
    const send = await runCli(
      [
        'send',
        file,
        '--template',
        'order_update',
        '--language',
        'en_US',
        '--params',
        'first_name,order_number',
        '--templates',
        SAMPLE_TEMPLATES,
        '--json',
      ],
      env,
    );
    expect(send.code).toBe(1);
    expect(send.stderr).toContain('"order_number"');
    expect(send.stderr).toContain('Nothing was enqueued');
    const list = await runCli(['list', '--json'], env);
    // Only the first test's campaign: `list --json` is one JSON array.
    expect(JSON.parse(list.stdout)).toHaveLength(1);
  });

  it('stops with one message listing every configuration problem', async () => {
    const result = await runCli(['worker'], { ...env, SEND_RATE: 'fast', REDIS_URL: 'nope', WHATSAPP_ACCESS_TOKEN: '' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('SEND_RATE');
    expect(result.stderr).toContain('REDIS_URL');
    expect(result.stderr).toContain('WHATSAPP_ACCESS_TOKEN');
  });
});
