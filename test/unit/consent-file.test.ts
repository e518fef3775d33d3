import { describe, expect, it } from 'vitest';
import { checkConsentRow, consentColumns, parseIsoTime } from '../../src/consent/consent-file.js';
import { rejectsBeside } from '../../src/campaigns/ingest/rejects-file.js';
import { isAppError } from '../../src/errors/app-error.js';
import { optOutSourceWords } from '../../src/redis/consent/opt-out-consent.js';
import { LUA_DIR, loadLuaCommand, loadLuaScript, readLuaHeader } from '../../src/redis/lua-scripts.js';
import { decodeHistory, encodeAt, newestIsOptIn } from '../../src/redis/consent/consent-encoding.js';

describe('a consent file', () => {
  it('finds its columns in any case, a time under any of its names; refuses a header without phone, naming the columns', () => {
    expect(consentColumns('a.csv', ['Phone', 'SOURCE', 'opted_in_at'])).toEqual({ phone: 0, source: 1, time: 2, fieldCount: 3 });
    expect(consentColumns('a.csv', ['at', 'phone'])).toEqual({ phone: 1, source: undefined, time: 0, fieldCount: 2 });
    let refusal: unknown;
    try {
      consentColumns('a.csv', ['mobile', 'when']);
    } catch (error) {
      refusal = error;
    }
    expect(isAppError(refusal) && refusal.code).toBe('CONSENT_FILE_INVALID');
    expect((refusal as Error).message).toContain('a.csv: the header has no "phone" column. Columns found: "mobile", "when"');
  });

  it.each([
    ['2026-03-01', Date.UTC(2026, 2, 1)],
    ['2026-03-01T09:30Z', Date.UTC(2026, 2, 1, 9, 30)],
    ['2026-03-01T09:30:15.250Z', Date.UTC(2026, 2, 1, 9, 30, 15, 250)],
    ['2026-03-01 09:30:00+01:00', Date.UTC(2026, 2, 1, 8, 30)],
    ['2026-03-01T09:30:00-0230', Date.UTC(2026, 2, 1, 12, 0)],
    ['2026-03-01T09:30:00', Date.UTC(2026, 2, 1, 9, 30)],
  ])('reads %s as ISO 8601 (no offset: UTC)', (text, at) => {
    expect(parseIsoTime(text)).toBe(at);
  });

  it.each(['2026-02-30', '2026-13-01', '2026-03-01T24:00Z', 'yesterday', '01/03/2026', '1969-12-31', '2026-03-01T09:30:00 UTC'])(
    'refuses %s as a time',
    (text) => {
      expect(parseIsoTime(text)).toBeUndefined();
    },
  );

  it('answers each row: an opt-in with the default source and time, or the reason it is refused', () => {
    const now = Date.UTC(2026, 5, 1);
    const rules = { columns: consentColumns('a.csv', ['phone', 'source', 'time']), defaultSource: 'consent file a.csv', now };
    expect(checkConsentRow(['+49 151 12345678', '', ''], rules)).toEqual({
      ok: true,
      entry: { phone: '+4915112345678', kind: 'opt-in', at: now, source: 'consent file a.csv' },
    });
    expect(checkConsentRow(['015112345678', 'shop\u001b[31m', '2026-01-01'], { ...rules, defaultCountry: 'DE' })).toMatchObject({
      ok: true,
      entry: { phone: '+4915112345678', source: 'shop\\x1b[31m', at: Date.UTC(2026, 0, 1) },
    });
    expect(checkConsentRow(['+4915112345678', 'x'], rules)).toMatchObject({ ok: false, reason: 'FIELD_COUNT' });
    expect(checkConsentRow(['', 'x', ''], rules)).toMatchObject({ ok: false, reason: 'PHONE_MISSING' });
    expect(checkConsentRow(['12345', 'x', ''], rules)).toMatchObject({ ok: false, reason: 'PHONE_INVALID' });
    expect(checkConsentRow(['+4915112345678', 'x', 'soon'], rules)).toMatchObject({ ok: false, reason: 'TIME_INVALID' });
    expect(checkConsentRow(['+4915112345678', 'x', '2026-06-02'], rules)).toMatchObject({ ok: false, reason: 'TIME_IN_FUTURE' });
    // A clock a little ahead of the ledger's is not the future.
    expect(checkConsentRow(['+4915112345678', 'x', '2026-06-01T00:04Z'], rules)).toMatchObject({ ok: true });
  });

  it('writes its rejects beside it', () => {
    expect(rejectsBeside('/data/signup.csv')).toBe('/data/signup.rejects.csv');
    expect(rejectsBeside('list')).toBe('list.rejects.csv');
  });
});

describe('consent entries from opt-outs', () => {
  it.each([
    ['stop', {}, 'user_preferences stop'],
    ['resume', {}, 'user_preferences resume'],
    ['remove', {}, 'operator: campaign optouts remove'],
    ['add', { via: 'keyword' }, 'opt-out keyword'],
    ['add', { via: 'operator' }, 'operator: campaign optouts add'],
    ['add', { campaignId: 'spring', row: 12, at: 1 }, 'Meta 131050 (campaign spring row 12)'],
    ['add', { campaignId: '?', row: 0, at: 0 }, 'opt-out (its source could not be read)'],
  ] as const)('%s with source %j reads "%s"', (action, source, words) => {
    expect(optOutSourceWords(action, source)).toBe(words);
  });
});

describe('the stored form', () => {
  it('keeps times at a fixed width, so their text sorts as they do, and reads a history back', () => {
    expect(encodeAt(0)).toBe('000000000');
    expect(encodeAt(1_764_000_000_000) < encodeAt(1_764_000_000_001)).toBe(true);
    expect(() => encodeAt(1.5)).toThrow(RangeError);
    const stored = `+${encodeAt(20)}.2,-${encodeAt(10)}.1,garbage`;
    expect(decodeHistory(stored)).toEqual([
      { kind: 'opt-in', at: 20, sourceId: '2' },
      { kind: 'opt-out', at: 10, sourceId: '1' },
    ]);
    expect([newestIsOptIn(stored), newestIsOptIn(`-${encodeAt(1)}.1`), newestIsOptIn(null)]).toEqual([true, false, false]);
  });

  it('record.lua documents its two keys and its arguments per entry, and is loaded with two keys', () => {
    const { numberOfKeys } = loadLuaCommand('record', new URL('consent/', LUA_DIR));
    const header = readLuaHeader(loadLuaScript('record', new URL('consent/', LUA_DIR)), 'consent/record.lua');
    expect(numberOfKeys).toBe(2);
    expect(header.keys.map((k) => k.name)).toEqual(['consent', 'sources']);
    expect(header.argv.map((a) => a.name)).toEqual(['keep', 'phone', 'kind', 'at', 'source']);
    expect(header.repeated).toEqual({ from: 2, width: 4 });
  });
});
