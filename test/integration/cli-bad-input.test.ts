import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliWithin, type CliResult } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';

/**
 * Every command, run the way a new user gets it wrong: bad paths, bad arguments, bad
 * settings. Each must exit non-zero with one clear line carrying a stable code and never a
 * stack trace; none may hang or create a campaign.
 */
const STACK = /^\s+at |node:internal/m;
/** A command still running after this has hung (a refusal takes seconds even on a machine running two suites). */
const HANG_MS = 90_000;
const SEND = ['--template', 'order_update', '--language', 'en_US', '--params', 'first_name,order_id', '--templates', SAMPLE_TEMPLATES];

describe('every command with bad paths and arguments', () => {
  const prefix = freshPrefix('bad-input');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  let campaignId = '';
  let busy: Server;
  let busyPort = 0;
  const path = (name: string) => join(dir.dir, name);

  beforeAll(async () => {
    dir = await tempDir();
    env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
      LOG_LEVEL: 'warn',
      REPORTS_DIR: path('reports'),
    };
    await writeFile(path('image.csv'), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]));
    await writeFile(path('book.xlsx'), Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(64, 1)]));
    await writeFile(path('page.csv'), '<!DOCTYPE html><html><body>phone,first_name</body></html>');
    await writeFile(path('header-only.csv'), 'phone,first_name,order_id\n\n');
    await writeFile(path('unclosed.csv'), 'phone,first_name,order_id\n+4915110000001,"Ana,A-1\n+4915110000002,Bo,A-2\n');
    await writeFile(path('not-json.json'), '{ this is not json');
    await writeFile(path('a-file'), 'x');
    await mkdir(path('a-dir'));
    execFileSync('mkfifo', [path('pipe.csv')]);
    await writeCampaignCsv(path('ok.csv'), 3);
    const created = await runCli(['send', path('ok.csv'), ...SEND, '--json'], env);
    campaignId = (JSON.parse(created.stdout) as { id: string }).id;
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    const redis = testRedis();
    await removePrefix(redis, prefix);
    await redis.quit();
    await dir.cleanup();
  });

  function expectClearFailure(result: CliResult, code: string | RegExp): void {
    expect(result.code, result.stderr).not.toBe(0);
    expect(result.stderr).not.toMatch(STACK);
    if (typeof code === 'string') expect(result.stderr).toMatch(new RegExp(`^campaign: ${code}: \\S`, 'm'));
    else expect(result.stderr).toMatch(code);
  }

  /** Only the campaign made in beforeAll exists: no failed command created one. */
  async function campaignsUnderPrefix(): Promise<number> {
    const list = await runCli(['list', '--json'], env);
    return (JSON.parse(list.stdout) as unknown[]).length;
  }

  describe.concurrent('send', () => {
    it.each([
      ['a missing file', () => path('missing.csv'), 'CSV_UNREADABLE'],
      ['a directory', () => path('a-dir'), 'CSV_UNREADABLE'],
      ['a named pipe', () => path('pipe.csv'), 'CSV_UNREADABLE'],
      ['/dev/zero', () => '/dev/zero', 'CSV_UNREADABLE'],
      ['a PNG image', () => path('image.csv'), 'CSV_NOT_CSV'],
      ['a ZIP/xlsx workbook', () => path('book.xlsx'), 'CSV_NOT_CSV'],
      ['an HTML page', () => path('page.csv'), 'CSV_NOT_CSV'],
      ['a header-only file', () => path('header-only.csv'), 'CSV_NO_ROWS'],
      ['a quote never closed', () => path('unclosed.csv'), 'CSV_UNCLOSED_QUOTE'],
    ])('%s → %s, nothing created', async (_label, file, code) => {
      // A pipe or a device read without care would hang: such a run is killed and fails here.
      const result = await runCliWithin(['send', file(), ...SEND], env, HANG_MS);
      expect(result.timedOut, result.stderr).toBe(false);
      expectClearFailure(result, code);
    });

    it.each([
      ['an unknown template', ['--template', 'no_such_template'], 'TEMPLATE_MAPPING_INVALID'],
      ['a bad --campaign ID', ['--campaign', 'a:b'], 'OPTION_INVALID'],
      ['an empty --phone-number-id', ['--phone-number-id', ''], 'OPTION_INVALID'],
      ['a bad --default-country', ['--default-country', 'XX1'], 'OPTION_INVALID'],
      ['a bad --delimiter', ['--delimiter', 'ab'], /^campaign: [A-Z_]+: |error: /m],
      ['a missing templates file', ['--templates', '/no/such/templates.json'], 'TEMPLATES_FILE_INVALID'],
    ])('%s → %s', async (_label, extra, code) => {
      expectClearFailure(await runCli(['send', path('ok.csv'), ...SEND, ...extra], env), code);
    });

    it.each([
      ['REPORTS_DIR is a file', () => ({ REPORTS_DIR: path('a-file') }), 'OUTPUT_UNWRITABLE'],
      ['REPORTS_DIR is under a file', () => ({ REPORTS_DIR: join(path('a-file'), 'sub') }), 'OUTPUT_UNWRITABLE'],
      // Node's recursive mkdir never returned there: the check must answer, not hang.
      ['REPORTS_DIR is under /proc', () => ({ REPORTS_DIR: '/proc/cw-no-such/reports' }), 'OUTPUT_UNWRITABLE'],
      ['SEND_RATE=abc', () => ({ SEND_RATE: 'abc' }), 'CONFIG_INVALID'],
      ['Redis not answering', () => ({ REDIS_URL: 'redis://127.0.0.1:1' }), 'REDIS_UNAVAILABLE'],
    ])('%s → %s', async (_label, settings, code) => {
      expectClearFailure(await runCli(['send', path('ok.csv'), ...SEND], { ...env, ...settings() }), code);
    });
  });

  it('no failed send created a campaign', async () => {
    expect(await campaignsUnderPrefix()).toBe(1);
  });

  describe.concurrent('campaign commands on an unknown ID', () => {
    it.each([['status'], ['report'], ['pause'], ['resume'], ['cancel'], ['retry'], ['purge']])(
      '%s → CAMPAIGN_NOT_FOUND',
      async (command) => {
        expectClearFailure(await runCli([command, 'no-such-campaign'], env), 'CAMPAIGN_NOT_FOUND');
      },
    );
  });

  describe.concurrent('other commands', () => {
    it('report --out a directory → OUTPUT_UNWRITABLE', async () => {
      expectClearFailure(await runCli(['report', campaignId, '--out', path('a-dir')], env), 'OUTPUT_UNWRITABLE');
    });

    it('report --out under /proc → OUTPUT_UNWRITABLE, without hanging', async () => {
      const result = await runCliWithin(['report', campaignId, '--out', '/proc/cw-no-such/report.csv'], env, HANG_MS);
      expect(result.timedOut, result.stderr).toBe(false);
      expectClearFailure(result, 'OUTPUT_UNWRITABLE');
    });

    it('purge of a campaign still running → CAMPAIGN_STATE_CONFLICT', async () => {
      expectClearFailure(await runCli(['purge', campaignId], env), 'CAMPAIGN_STATE_CONFLICT');
    });

    it('sandbox on a busy port → PORT_IN_USE', async () => {
      expectClearFailure(await runCli(['sandbox', '--port', String(busyPort)], env), 'PORT_IN_USE');
    });

    it.each([
      [['sandbox', '--port', 'abc'], 'OPTION_INVALID'],
      [['sandbox', '--port', '0', '--templates', '/no/such.json'], 'TEMPLATES_FILE_INVALID'],
      [['templates', 'list', '--templates', '/no/such.json'], 'TEMPLATES_FILE_INVALID'],
      [['templates', 'sync', '--templates', 'NOT_JSON'], 'TEMPLATES_FILE_INVALID'],
      [['templates', 'list', '--templates', 'PIPE'], 'TEMPLATES_FILE_INVALID'],
      [['sandbox', '--port', '0', '--templates', '/dev/zero'], 'TEMPLATES_FILE_INVALID'],
      [['sandbox', '--host', '', '--port', '0'], 'OPTION_INVALID'],
    ])('%j → %s', async (args, code) => {
      const resolved = args.map((arg) => (arg === 'NOT_JSON' ? path('not-json.json') : arg));
      expectClearFailure(await runCli(resolved, env), code);
    });

    it('worker without an access token → CONFIG_INVALID', async () => {
      expectClearFailure(await runCli(['worker'], { ...env, WHATSAPP_ACCESS_TOKEN: '' }), 'CONFIG_INVALID');
    });

    it.each([
      [['no-such-command'], /^campaign: ARGUMENT_INVALID: unknown command 'no-such-command'$/m],
      [['status', 'some-campaign', '--no-such-option'], /^campaign: ARGUMENT_INVALID: unknown option '--no-such-option'$/m],
      [['reschedule', 'some-campaign'], /^campaign: ARGUMENT_INVALID: required option '--at <time>' not specified$/m],
      [['status'], /^campaign: ARGUMENT_INVALID: missing required argument 'id'$/m],
    ])('%j → ARGUMENT_INVALID', async (args, said) => {
      expectClearFailure(await runCli(args, env), said);
    });
  });
});
