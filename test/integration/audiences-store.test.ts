import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testContext } from '../support/app-context.js';
import { phoneNumber, tempDir } from '../support/csv-files.js';
import type { AppContext } from '../../src/app/app-context.js';
import {
  audienceColumns,
  audienceContacts,
  audienceHistory,
  deleteAudience,
  expireAudiences,
  exportAudience,
  importAudience,
  listAudiences,
  purgeAudience,
  removeContacts,
  showAudience,
  type AudienceContact,
} from '../../src/app/audiences.js';
import { RedisConsent } from '../../src/redis/consent/redis-consent.js';
import { audienceKeys, audiencePortfoliosKey } from '../../src/redis/audiences/audience-keys.js';
import { isAppError } from '../../src/errors/app-error.js';

const target = { portfolio: 'shop' };

/** `count` contacts phone,first_name,tier,city (from phoneNumber(from) on). */
function contactLines(count: number, from = 1, tier = 'gold'): string[] {
  return Array.from({ length: count }, (_, i) => `${phoneNumber(from + i)},Name${from + i},${tier},Berlin`);
}

async function collect(contacts: AsyncIterable<AudienceContact>): Promise<AudienceContact[]> {
  const all: AudienceContact[] = [];
  for await (const contact of contacts) all.push(contact);
  return all;
}

function sink(): { out: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { out, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('audiences in Redis', () => {
  let context: AppContext;
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    context = testContext(`audiences-${Math.random().toString(16).slice(2, 10)}`, { PORTFOLIOS: '1001:shop' });
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(async () => {
    await context.close();
    await cleanup();
  });

  it('imports 10,000 contacts, then re-imports an update: changed values, a new column, new contacts; the other columns stay', async () => {
    const file = join(dir, 'customers.csv');
    await writeFile(file, ['phone,first_name,tier,city', ...contactLines(10_000)].join('\n') + '\n');
    const first = await importAudience(context, { name: 'customers', file, target });
    expect(first).toMatchObject({ read: 10_000, added: 10_000, updated: 0, rejected: 0, duplicates: 0, contacts: 10_000, created: true });
    expect(first.columns).toEqual(['first_name', 'tier', 'city']);
    expect(first.rejectsFile).toBeUndefined();
    expect(first.bytes).toBeGreaterThan(0);

    // Contacts 9,001–10,500: 1,000 updated (tier silver, a new column), 500 new; the file has no city.
    const update = join(dir, 'update.csv');
    const rows = Array.from({ length: 1500 }, (_, i) => `${phoneNumber(9001 + i)},silver,N${9001 + i}`);
    await writeFile(update, ['phone,tier,member_no', ...rows].join('\n') + '\n');
    const second = await importAudience(context, { name: 'customers', file: update, target });
    expect(second).toMatchObject({ read: 1500, added: 500, updated: 1000, contacts: 10_500, created: false });
    expect(second.columns).toEqual(['first_name', 'tier', 'city', 'member_no']);

    const all = new Map((await collect(audienceContacts(context, target, 'customers'))).map((c) => [c.phone, c.attributes]));
    expect(all.size).toBe(10_500);
    expect(all.get(phoneNumber(1))).toEqual({ first_name: 'Name1', tier: 'gold', city: 'Berlin', member_no: '' });
    expect(all.get(phoneNumber(9500))).toEqual({ first_name: 'Name9500', tier: 'silver', city: 'Berlin', member_no: 'N9500' });
    expect(all.get(phoneNumber(10_400))).toEqual({ first_name: '', tier: 'silver', city: '', member_no: 'N10400' });

    const [listed] = await listAudiences(context, target);
    expect(listed).toMatchObject({ name: 'customers', contacts: 10_500, columns: second.columns, importedFrom: 'update.csv' });
    expect(await audienceColumns(context, target, 'customers')).toEqual(second.columns);
    // A where filter chooses the segment.
    const silver = { text: 'tier = silver', attributes: ['tier'], matches: (a: Readonly<Record<string, string>>) => a.tier === 'silver' };
    expect((await collect(audienceContacts(context, target, 'customers', silver))).length).toBe(1500);
  });

  it('--replace makes the audience exactly the file, at once; every key of it is in the portfolio’s slot', async () => {
    const file = join(dir, 'a.csv');
    await writeFile(file, ['phone,first_name', ...Array.from({ length: 50 }, (_, i) => `${phoneNumber(i + 1)},A${i}`)].join('\n'));
    await importAudience(context, { name: 'list.1', file, target });
    const next = join(dir, 'b.csv');
    await writeFile(next, ['phone,tier', `${phoneNumber(40)},gold`, `${phoneNumber(900)},silver`].join('\n'));
    const replaced = await importAudience(context, { name: 'list.1', file: next, target, replace: true });
    expect(replaced).toMatchObject({ replaced: 50, contacts: 2, columns: ['tier'], created: true });
    const contacts = await collect(audienceContacts(context, target, 'list.1'));
    expect(contacts.sort((a, b) => a.phone.localeCompare(b.phone))).toEqual([
      { phone: phoneNumber(40), attributes: { tier: 'gold' } },
      { phone: phoneNumber(900), attributes: { tier: 'silver' } },
    ]);
    const prefix = context.config.queuePrefix;
    // Every key but the list of portfolios with audiences (the retention sweep's, written alone).
    const keys = (await context.redis.keys(`${prefix}:*audience*`)).filter((key) => key !== audiencePortfoliosKey(prefix));
    expect(keys.length).toBeGreaterThan(0);
    const tag = `{${prefix}:portfolio:shop}`;
    for (const key of keys) expect(key).toContain(tag);
    expect(keys.filter((key) => key.includes(':staging:'))).toEqual([]);
  });

  it('refuses bad rows by row number, counts duplicates (the later row wins), refuses a file without the phone column', async () => {
    const file = join(dir, 'mixed.csv');
    const lines = [
      'phone,first_name',
      `${phoneNumber(1)},Ann`,
      ',Nobody',
      '12345,NoCountry',
      `${phoneNumber(2)},Bob`,
      `${phoneNumber(1)},Ann2`,
    ];
    await writeFile(file, lines.join('\n') + '\n');
    const outcome = await importAudience(context, { name: 'mixed', file, target });
    expect(outcome).toMatchObject({ read: 5, added: 2, updated: 0, rejected: 2, duplicates: 1, contacts: 2 });
    expect(outcome.rejectsFile).toBe(join(dir, 'mixed.rejects.csv'));
    const rejects = await readFile(join(dir, 'mixed.rejects.csv'), 'utf8');
    expect(rejects).toMatch(/^row,phone,reason\n/);
    expect(rejects).toContain('2,,PHONE_MISSING');
    expect(rejects).toContain('3,12345,"PHONE_INVALID: ""12345"" has no country code');
    expect(rejects).toMatch(/1,\+4915110000001,DUPLICATE_PHONE: row 5 has the same number/);
    const contacts = await collect(audienceContacts(context, target, 'mixed'));
    expect(contacts.find((c) => c.phone === phoneNumber(1))?.attributes).toEqual({ first_name: 'Ann2' });

    const withCountry = join(dir, 'national.csv');
    await writeFile(withCountry, 'phone,first_name\n0151 10000003,Cem\n');
    expect(await importAudience(context, { name: 'mixed', file: withCountry, target, defaultCountry: 'de' })).toMatchObject({ added: 1 });

    const noPhone = join(dir, 'nophone.csv');
    await writeFile(noPhone, 'mobile,first_name\n+4915110000001,Ann\n');
    const refused = await importAudience(context, { name: 'other', file: noPhone, target }).catch((e: unknown) => e);
    expect(isAppError(refused, 'CSV_HEADER_INVALID')).toBe(true);
    expect((refused as Error).message).toContain('Columns found: "mobile", "first_name"');
    expect((refused as Error).message).toContain('--phone-column');
    expect(await listAudiences(context, target)).toHaveLength(1);
    expect(await importAudience(context, { name: 'other', file: noPhone, target, phoneColumn: 'mobile' })).toMatchObject({ added: 1 });
  });

  it('export: phone, attributes, opted_out, user_id, consent; a formula cell comes out as text', async () => {
    const file = join(dir, 'signup.csv');
    const lines = ['phone,note,opted_in', `${phoneNumber(1)},"=HYPERLINK(""http://x"",""y"")",2026-01-02`, `${phoneNumber(2)},plain,`];
    await writeFile(file, lines.join('\n') + '\n');
    const outcome = await importAudience(context, { name: 'signup', file, target, consentColumn: 'opted_in' });
    expect(outcome.consentRecorded).toBe(1);
    await context.ledger.addPortfolioOptOut('shop', phoneNumber(2));
    const consent = await new RedisConsent(context.redis, context.config.queuePrefix).history('shop', phoneNumber(1));
    expect(consent).toMatchObject([{ kind: 'opt-in', at: Date.parse('2026-01-02'), source: 'audience signup, column opted_in' }]);

    const { out, text } = sink();
    expect(await exportAudience(context, target, 'signup', out)).toBe(2);
    const csv = text().trim().split('\n');
    expect(csv[0]).toBe('phone,note,opted_in,opted_out,user_id,consent');
    const byPhone = new Map(csv.slice(1).map((line) => [line.slice(0, 14), line]));
    expect(byPhone.get(phoneNumber(1))).toBe(
      `${phoneNumber(1)},"'=HYPERLINK(""http://x"",""y"")",2026-01-02,,,opt-in 2026-01-02T00:00:00.000Z`,
    );
    // The operator's opt-out is on the consent record too (the consent store keeps opt-outs as well).
    expect(byPhone.get(phoneNumber(2))).toMatch(/^\+4915110000002,plain,,(\S+Z) operator,,opt-out \1$/);

    const shown = await showAudience(context, target, 'signup');
    expect(shown).toMatchObject({ contacts: 2, optedOut: 1, withConsent: 1, withUserId: 0, filled: { note: 2, opted_in: 1 } });
  });

  it('remove, delete, purge and retention; an unknown audience is AUDIENCE_NOT_FOUND, a bad name AUDIENCE_NAME_INVALID', async () => {
    const file = join(dir, 'x.csv');
    await writeFile(file, ['phone,first_name', ...contactLines(5).map((l) => l.split(',').slice(0, 2).join(','))].join('\n'));
    await importAudience(context, { name: 'x', file, target });
    const removed = await removeContacts(context, target, 'x', ['+49 151 10000001', phoneNumber(99), 'nonsense']);
    expect(removed).toEqual({ removed: 1, notFound: [phoneNumber(99), 'nonsense'] });
    expect((await showAudience(context, target, 'x')).contacts).toBe(4);

    expect(await deleteAudience(context, target, 'x')).toBe(true);
    expect(await deleteAudience(context, target, 'x')).toBe(false);
    const missing = await showAudience(context, target, 'x').catch((e: unknown) => e);
    expect(isAppError(missing, 'AUDIENCE_NOT_FOUND')).toBe(true);
    const badName = await importAudience(context, { name: 'no:colons', file, target }).catch((e: unknown) => e);
    expect(isAppError(badName, 'AUDIENCE_NAME_INVALID')).toBe(true);

    await importAudience(context, { name: 'y', file, target });
    expect(await purgeAudience(context, target, 'y')).toMatchObject({ name: 'y', portfolio: 'shop', contacts: 5 });
    expect((await audienceHistory(context, target)).map((l) => [l.action, l.name])).toEqual([
      ['purged', 'y'],
      ['deleted', 'x'],
    ]);
    expect(await context.redis.exists(audienceKeys(context.config.queuePrefix, 'shop', 'y').contacts)).toBe(0);

    await importAudience(context, { name: 'old', file, target });
    const kept = { ...context, config: { ...context.config, audienceRetentionMs: undefined } };
    expect(await expireAudiences(kept, Date.now() + 10 * 86_400_000)).toEqual([]);
    const expiring = { ...context, config: { ...context.config, audienceRetentionMs: 86_400_000 } };
    expect(await expireAudiences(expiring, Date.now())).toEqual([]);
    expect(await expireAudiences(expiring, Date.now() + 2 * 86_400_000)).toEqual(['shop/old']);
    expect(await listAudiences(context, target)).toEqual([]);
  });
});
