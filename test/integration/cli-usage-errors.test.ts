import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { freshPrefix, redisUrl } from '../support/redis.js';
import { pattern } from '../support/long-pattern.js';

/**
 * A command typed wrong, as a new operator types it: one line with the code, one hint line
 * naming the (sub)command's help, exit code 2, nothing on stdout; never commander's
 * `error: …` followed by the whole usage (74 lines for `send`). Help and --version still work.
 */
const env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: freshPrefix('usage'), WHATSAPP_PHONE_NUMBER_ID: '106540352242922', LOG_LEVEL: 'warn' };

describe('usage errors through the CLI', () => {
  describe.concurrent('commander’s usage errors → ARGUMENT_INVALID, one line and a hint, exit 2', () => {
    it.each([
      [['send', 'file.csv', '--template', 'order_update', '--zzyzx'], "unknown option '--zzyzx'", 'campaign send'],
      [['send', 'file.csv', '--dry-rn'], "unknown option '--dry-rn' (did you mean --dry-run?)", 'campaign send'],
      [['send'], "missing required argument 'file' (or --audience NAME)", 'campaign send'],
      [['reschedule', 'c1'], "required option '--at <time>' not specified", 'campaign reschedule'],
      [['sned', 'file.csv'], "unknown command 'sned' (did you mean send?)", 'campaign'],
      [
        ['send', 'file.csv', '--param', 'first_name'],
        "option '--param <slot=column>' argument 'first_name' is invalid. write it as --param SLOT=COLUMN, " +
          'e.g. --param body.first_name=Name or --param button.1.coupon_code=code',
        'campaign send',
      ],
      [['sandbox', '--port'], "option '--port <n>' argument missing", 'campaign sandbox'],
      [['status', 'c1', 'c2'], "too many arguments for 'status'. Expected 1 argument but got 2.", 'campaign status'],
      [['optouts', 'add'], "missing required argument 'phone'", 'campaign optouts add'],
      [['optouts', 'frob'], "unknown command 'frob'", 'campaign optouts'],
      [['templates', 'list', '--nope'], "unknown option '--nope'", 'campaign templates list'],
    ])('%j', async (args, what, command) => {
      const result = await runCli(args, env);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`campaign: ARGUMENT_INVALID: ${what}\nsee ${command} --help\n`);
    });
  });

  describe.concurrent('values the commands check themselves → exit 2 for usage codes, 1 for others', () => {
    it.each([
      [['sandbox', '--port', 'abc'], 2, 'campaign: OPTION_INVALID: --port "abc": give a whole number from 0 to 65535\n'],
      [['worker', '--phone-number-id', '12ab'], 2, /^campaign: OPTION_INVALID: --phone-number-id "12ab": /],
      [
        ['retry', 'c1', '--codes', 'abc'],
        2,
        /^campaign: OPTION_INVALID: --codes "ABC" is not an error code: codes are Meta's numeric error codes, e\.g\. 131026 /,
      ],
      [
        ['retry', 'c1', '--codes', ','],
        2,
        pattern(
          /^campaign: OPTION_INVALID: --codes "," names no code: give the error codes of/,
          / the failed rows to send again, comma-separated, e\.g\. --codes 131026,131000\n$/,
        ),
      ],
      [['retry', 'c1', '--codes', '131026,x-1'], 2, /^campaign: OPTION_INVALID: --codes "X-1" is not an error code/],
    ])('%j → exit %i', async (args, code, said) => {
      const result = await runCli(args, env);
      expect(result.code, result.stderr).toBe(code);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      if (typeof said === 'string') expect(result.stderr).toBe(said);
      else expect(result.stderr).toMatch(said);
    });

    it('a bad setting is not a usage error: CONFIG_INVALID, exit 1', async () => {
      const result = await runCli(['status', 'c1'], { ...env, SEND_RATE: 'fast' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^campaign: CONFIG_INVALID: /);
    });

    it('a missing campaign is not a usage error: CAMPAIGN_NOT_FOUND, exit 1', async () => {
      const result = await runCli(['retry', 'no-such-campaign', '--codes', '131026,worker_gave_up'], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^campaign: CAMPAIGN_NOT_FOUND: /);
    });
  });

  describe.concurrent('help and version are not errors', () => {
    it.each([[['--help']], [['send', '--help']], [['optouts', 'add', '--help']], [['help', 'status']]])(
      '%j → the usage on stdout, exit 0',
      async (args) => {
        const result = await runCli(args, env);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/^Usage: campaign /);
        expect(result.stderr).toBe('');
      },
    );

    it('--version prints the package version, exit 0', async () => {
      const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
      const result = await runCli(['--version'], env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    });

    it('`campaign` alone shows the usage on stderr and exits 1, as before', async () => {
      const result = await runCli([], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^Usage: campaign /);
    });
  });
});
