import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';

/**
 * Times as an operator types them into the compiled CLI: an impossible date is refused with
 * TIME_INVALID before anything is created (not rolled over into March), the other time rules
 * say why, and the plan shows its times in the operator's zone.
 */
describe('campaign send and reschedule: times are real times', () => {
  const prefix = freshPrefix('cli-times');
  let redis: Redis;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  let file: string;
  const send = (extra: string[]) =>
    runCli(
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
        ...extra,
      ],
      env,
    );
  /** Every key under the test's prefix: none while nothing was created. */
  const keys = () => redis.keys(`${prefix}*`);
  /** `ms` written as an operator in +01:00 would type it. */
  const plusOne = (ms: number) => `${new Date(ms + 3_600_000).toISOString().slice(0, 19)}+01:00`;

  beforeAll(async () => {
    redis = testRedis();
    dir = await tempDir();
    file = join(dir.dir, 'times.csv');
    await writeCampaignCsv(file, 3);
    env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
      SEND_RATE: '80',
      LOG_LEVEL: 'warn',
      REPORTS_DIR: join(dir.dir, 'reports'),
    };
  });

  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
    await dir.cleanup();
  });

  it("send --at 2027-02-30T09:00:00+01:00 is refused with TIME_INVALID, naming the value and the month's days; nothing made", async () => {
    const result = await send(['--at', '2027-02-30T09:00:00+01:00']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(
      'campaign: TIME_INVALID: --at "2027-02-30T09:00:00+01:00": 2027-02-30 has no such day: February ' +
        '2027 has 28 days; give a real date and time, e.g. 2026-12-01T09:00:00+01:00',
    );
    expect(await keys()).toEqual([]);
    expect(await readdir(join(dir.dir, 'reports')).catch(() => [])).toEqual([]);
  });

  it('the other time options, and a year that is a typo, the same way; --start-deadline without --at says why', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--expires-at', '2026-11-31T09:00:00Z'],
        /^campaign: TIME_INVALID: --expires-at "2026-11-31T09:00:00Z": 2026-11-31 has no such day: November 2026 has 30 days/,
      ],
      [
        ['--at', plusOne(Date.now() + 86_400_000), '--start-deadline', '2027-02-29T09:00:00Z'],
        /^campaign: TIME_INVALID: --start-deadline .*2027 is not a leap year/,
      ],
      [
        ['--at', '3026-12-01T09:00:00+01:00'],
        /^campaign: TIME_TOO_FAR_AHEAD: --at 3026-12-01T09:00:00\+01:00 is more than a year ahead .*a typo in the year\?/,
      ],
      [
        ['--start-deadline', plusOne(Date.now() + 3_600_000)],
        /^campaign: OPTION_INVALID: --start-deadline \S+ needs --at: a deadline only cancels a scheduled campaign that has not started/,
      ],
      [['--display-timezone', 'Mars/Base'], /^campaign: TIMEZONE_NOT_FOUND: --display-timezone "Mars\/Base": give an IANA time zone/],
      [['--window', '09:00-09:00'], /^campaign: OPTION_INVALID: --window "09:00-09:00" is empty/],
    ];
    for (const [extra, message] of cases) {
      const result = await send(extra);
      expect(result.code, extra.join(' ')).toBe(2);
      expect(result.stderr.trim(), extra.join(' ')).toMatch(message);
    }
    expect(await keys()).toEqual([]);
  });

  it('reschedule --at refuses 31 November with TIME_INVALID', async () => {
    const result = await runCli(['reschedule', 'any-campaign', '--at', '2026-11-31T09:00:00+01:00'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^campaign: TIME_INVALID: --at "2026-11-31T09:00:00\+01:00": 2026-11-31 has no such day: November 2026 has 30 days/,
    );
  });

  it('the plan speaks the zone typed in --at, to the second, UTC beside; a start 45 s ahead is scheduled, not "at once"', async () => {
    const startsAt = Math.floor((Date.now() + 45_000) / 1000) * 1000;
    const result = await send(['--at', plusOne(startsAt), '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    const utc = new Date(startsAt).toISOString();
    const local = plusOne(startsAt);
    expect(result.stdout).toContain(
      `\n  starts ${local.slice(0, 10)} ${local.slice(11, 19)} +01:00 ` +
        `(${local.slice(0, 10) === utc.slice(0, 10) ? '' : `${utc.slice(0, 10)} `}${utc.slice(11, 19)} UTC) (scheduled)\n`,
    );
    expect(result.stdout).not.toContain('at once');
    // --display-timezone chooses another zone; without --at the campaign starts at once.
    const shown = await send(['--display-timezone', 'Asia/Kolkata', '--dry-run']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /\n {2}starts \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30 \((\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d UTC\) \(at once\)\n/,
    );
    // A dry run creates no campaign (it caches the templates it read, nothing else).
    expect((await keys()).filter((key) => !key.includes(':templates:'))).toEqual([]);
  });
});
