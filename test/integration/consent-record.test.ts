import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consentHistory, importConsent } from '../../src/app/consent.js';
import { changeOptOut, optOutsTarget } from '../../src/app/opt-outs.js';
import { isAppError } from '../../src/errors/app-error.js';
import { RedisConsent } from '../../src/redis/consent/redis-consent.js';
import { portfolioOptOutKeys } from '../../src/redis/ledger/ledger-optouts.js';
import { testContext } from '../support/app-context.js';
import { runConsentImport, runConsentShow } from '../../src/cli/run/consent.js';
import { runCli } from '../support/cli-process.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';

const NUMBER = '106540352242922';
const dir = mkdtempSync(join(tmpdir(), 'consent-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function csvFile(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** A consent file's opt-ins, the opt-outs and lifts of every source, and what `consent show` and `consented` answer. */
describe('consent on record', () => {
  it('imports a file (a bad row answered with its row), and every source lands in the history, newest first', async () => {
    const context = testContext(freshPrefix('consent'), { WHATSAPP_PHONE_NUMBER_ID: NUMBER });
    try {
      const file = csvFile('signup.csv', [
        'Phone,Source,opted_in_at',
        '+4915112345678,web form,2026-01-10T09:00:00Z',
        '+4915112345679,,2026-01-11',
        'notaphone,web form,2026-01-10T09:00:00Z',
        '+4915112345680,web form,yesterday',
        '+4915112345681,web form,2999-01-01',
        '"=HYPERLINK(""http://x"")",web form,',
        '+49 151 12345682,,',
      ]);
      const result = await importConsent(context, { file, target: {}, source: 'shop counter' });
      expect(result).toMatchObject({ portfolio: 'default', rowsRead: 7, recorded: 3, rejected: 4 });
      expect(result.rejections.map((r) => [r.row, r.reason])).toEqual([
        [3, 'PHONE_INVALID'],
        [4, 'TIME_INVALID'],
        [5, 'TIME_IN_FUTURE'],
        [6, 'PHONE_INVALID'],
      ]);
      expect(result.rejectsFile).toBe(join(dir, 'signup.rejects.csv'));
      const rejects = readFileSync(join(dir, 'signup.rejects.csv'), 'utf8');
      expect(rejects.split('\n')[0]).toBe('row,line,phone,reason');
      expect(rejects).toContain(`6,7,"'=HYPERLINK(""http://x"")"`);
      expect(rejects).toMatch(/^5,6,\+4915112345681,"TIME_IN_FUTURE: 2999-01-01 is after the import's time/m);

      const target = optOutsTarget(context, {});
      expect(await changeOptOut(context, target, '+4915112345678', 'add')).toBe(true);
      expect(await changeOptOut(context, target, '+4915112345678', 'remove')).toBe(true);
      // Recorded even when nothing changed: the history is what happened.
      expect(await changeOptOut(context, target, '+4915112345679', 'remove')).toBe(false);
      // After the import, which recorded this row at its own time (the row has none).
      const stopAt = (await context.ledger.now()) + 1000;
      await context.ledger.applyPreferences([{ phoneNumberId: NUMBER, waId: '4915112345682', value: 'stop', at: stopAt }]);

      const first = await consentHistory(context, {}, '+49 151 12345678');
      expect(first.entries.map((e) => [e.kind, e.source])).toEqual([
        ['opt-in', 'operator: campaign optouts remove'],
        ['opt-out', 'operator: campaign optouts add'],
        ['opt-in', 'web form'],
      ]);
      expect(first.entries[2]?.at).toBe(Date.parse('2026-01-10T09:00:00Z'));
      const times = first.entries.map((e) => e.at);
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect((await consentHistory(context, {}, '+4915112345679')).entries.map((e) => [e.kind, e.source, e.at])).toEqual([
        ['opt-in', 'operator: campaign optouts remove', expect.any(Number)],
        ['opt-in', 'shop counter', Date.parse('2026-01-11T00:00:00Z')],
      ]);
      const stopped = await consentHistory(context, {}, '+4915112345682');
      expect(stopped.entries.map((e) => [e.kind, e.source])).toEqual([
        ['opt-out', 'user_preferences stop'],
        ['opt-in', 'shop counter'],
      ]);

      const store = new RedisConsent(context.redis, context.config.queuePrefix);
      const phones = ['+4915112345678', '+4915112345679', '+4915112345682', '+4915112345699'];
      expect(await store.consented('default', phones)).toEqual([true, true, false, false]);
      await changeOptOut(context, target, '+4915112345678', 'add');
      expect(await store.consented('default', phones.slice(0, 1))).toEqual([false]);
    } finally {
      await context.close();
    }
  });

  it('shows an opt-out recorded before histories were kept, with its source; an empty history is empty', async () => {
    const context = testContext(freshPrefix('consent-old'), { WHATSAPP_PHONE_NUMBER_ID: NUMBER });
    try {
      const at = Date.parse('2025-06-01T12:00:00Z');
      const source = JSON.stringify({ campaignId: 'spring', row: 7, at });
      await context.redis.hset(portfolioOptOutKeys(context.config.queuePrefix, 'default').optouts, '+4915112345678', source);
      const history = await consentHistory(context, {}, '+4915112345678');
      expect(history.entries).toEqual([
        {
          phone: '+4915112345678',
          kind: 'opt-out',
          at,
          source: 'Meta 131050 (campaign spring row 7) (recorded before consent histories were kept)',
        },
      ]);
      expect((await consentHistory(context, {}, '+4915112345679')).entries).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refuses a file without a phone column, or without data rows, naming what it found; nothing is recorded', async () => {
    const context = testContext(freshPrefix('consent-bad'), { WHATSAPP_PHONE_NUMBER_ID: NUMBER });
    try {
      const noPhone = csvFile('nophone.csv', ['mobile,source', '+4915112345678,form']);
      const refusal = await importConsent(context, { file: noPhone, target: {} }).catch((error: unknown) => error);
      expect(isAppError(refusal) && refusal.code).toBe('CONSENT_FILE_INVALID');
      expect((refusal as Error).message).toContain('Columns found: "mobile", "source"');
      const empty = csvFile('empty.csv', ['phone,source']);
      const none = await importConsent(context, { file: empty, target: {} }).catch((error: unknown) => error);
      expect(isAppError(none) && none.code).toBe('CONSENT_FILE_INVALID');
      expect((none as Error).message).toContain('no data rows');
      const keys = await context.redis.keys(`${context.config.queuePrefix}:*consent*`);
      expect(keys).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the CLI’s words (src/cli/run/consent.ts): the import’s answer, the history as a table and as JSON', async () => {
    const context = testContext(freshPrefix('consent-words'), { WHATSAPP_PHONE_NUMBER_ID: NUMBER });
    try {
      const file = csvFile('words.csv', ['phone,time', '+4915112345678,2026-03-01T08:00:00+01:00', '+4915112345679,not a time']);
      const imported = await runConsentImport(context, file, { source: 'paper form' });
      expect(imported).toBe(
        `${file}: 2 rows read; 1 opt-ins recorded on portfolio default (of ${NUMBER}); 1 rejected ` +
          `(each with its row and reason in ${join(dir, 'words.rejects.csv')}):\n` +
          '  row 2 (line 3): TIME_INVALID: "not a time" is not an ISO 8601 time such as 2026-03-01T09:30:00Z',
      );
      await changeOptOut(context, optOutsTarget(context, {}), '+4915112345678', 'add');
      const table = (await runConsentShow(context, '+4915112345678', {})).split('\n');
      expect(table.slice(0, 2)).toEqual([
        `+4915112345678 on portfolio default (of ${NUMBER}), newest first:`,
        expect.stringMatching(/^when \(UTC\) +what +how$/),
      ]);
      expect(table[2]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}opted out {2}operator: campaign optouts add$/);
      expect(table[3]).toBe('2026-03-01T07:00:00.000Z  opted in   paper form');
      expect(JSON.parse(await runConsentShow(context, '+4915112345678', { json: true }))).toMatchObject({
        phone: '+4915112345678',
        portfolio: 'default',
        entries: [{ kind: 'opt-out' }, { at: '2026-03-01T07:00:00.000Z', kind: 'opt-in', source: 'paper form' }],
      });
      expect(await runConsentShow(context, '+4915112345699', {})).toBe(
        `+4915112345699: no consent on record on portfolio default (of ${NUMBER}).`,
      );
    } finally {
      await context.close();
    }
  });

  it('campaign consent import and show, through the built CLI (npm test builds it first)', async () => {
    const prefix = freshPrefix('consent-cli');
    const env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, WHATSAPP_PHONE_NUMBER_ID: NUMBER };
    const redis = testRedis();
    try {
      const file = csvFile('cli.csv', ['phone,time', '+4915112345678,2026-03-01T08:00:00+01:00', '+4915112345679,not a time']);
      const imported = await runCli(['consent', 'import', file, '--source', 'paper form'], env);
      expect(imported.stdout).toContain('2 rows read; 1 opt-ins recorded on portfolio default (of 106540352242922); 1 rejected');
      expect(imported.stdout).toContain('row 2 (line 3): TIME_INVALID');
      const shown = await runCli(['consent', 'show', '+4915112345678'], env);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/^2026-03-01T07:00:00\.000Z +opted in +paper form$/m);
      const json = await runCli(['consent', 'show', '+4915112345678', '--json'], env);
      expect(JSON.parse(json.stdout)).toEqual({
        phone: '+4915112345678',
        portfolio: 'default',
        entries: [{ at: '2026-03-01T07:00:00.000Z', kind: 'opt-in', source: 'paper form' }],
      });
      const nobody = await runCli(['consent', 'show', '+4915112345699'], env);
      expect(nobody.stdout).toContain('no consent on record');
    } finally {
      await removePrefix(redis, prefix);
      await redis.quit();
    }
  });
});
