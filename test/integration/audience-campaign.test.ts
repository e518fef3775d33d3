import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importAudience } from '../../src/app/audiences.js';
import { consentHistory, importConsent } from '../../src/app/consent.js';
import { watchTestSend } from '../../src/cli/run/test-send-watch.js';
import { PORTFOLIO_NUMBERS, PortfolioPipeline } from '../support/portfolio-pipeline.js';

/**
 * Audiences, consent and test sends through the real pipeline (sandbox, `campaign serve`,
 * worker): an audience of 10,000 contacts imported and updated, a segment of it sent with
 * `--where` (exactly its contacts in the report, opt-outs skipped), `--require-consent`
 * skipping those without an opt-in (NO_CONSENT), and `--test-to` reaching only the test numbers.
 */
const [NUMBER_A, NUMBER_B] = PORTFOLIO_NUMBERS;
const CONTACTS = 10_000;
const COUNTRIES = ['DE', 'AT', 'FR', 'DE', 'NL'];
const TIERS = ['gold', 'silver', 'bronze', 'none'];
const phoneOf = (i: number) => `+49151${String(20_000_000 + i)}`;

interface Contact {
  phone: string;
  country: string;
  tier: string;
}

/** The audience as the test's two files give it: contact i's country and tier, its tier changed by the update for every 7th. */
function contact(i: number, updated: boolean): Contact {
  const tier = updated && i % 7 === 0 ? 'gold' : TIERS[i % TIERS.length]!;
  return { phone: phoneOf(i), country: COUNTRIES[i % COUNTRIES.length]!, tier };
}

describe('audiences: a segment sent with --where; consent; test sends', () => {
  let pipeline: PortfolioPipeline;

  beforeAll(async () => {
    pipeline = await PortfolioPipeline.start({ name: 'audience-campaign' });
  });

  afterAll(async () => {
    await pipeline.close();
  });

  const target = { portfolio: 'retail' };

  async function writeContacts(name: string, count: number, updated: boolean): Promise<string> {
    const file = pipeline.file(name);
    const lines = ['phone,name,discount,banner,country,tier'];
    for (let i = 0; i < count; i++) {
      const c = contact(i, updated);
      lines.push(`${c.phone},Ana ${i},${i % 50}%,https://example.com/${i}.jpg,${c.country},${c.tier}`);
    }
    await writeFile(file, lines.join('\n') + '\n');
    return file;
  }

  it('imports 10,000 contacts, updates them, and sends exactly the segment, opted-out contacts skipped', async () => {
    const first = await importAudience(pipeline.context, {
      name: 'weekly',
      file: await writeContacts('weekly.csv', CONTACTS, false),
      target,
    });
    expect(first).toMatchObject({ read: CONTACTS, added: CONTACTS, rejected: 0 });
    // The update: every 7th contact is gold now, and 100 newcomers.
    const update = await importAudience(pipeline.context, {
      name: 'weekly',
      file: await writeContacts('weekly-2.csv', CONTACTS + 100, true),
      target,
    });
    expect(update).toMatchObject({ read: CONTACTS + 100, added: 100, updated: CONTACTS });
    const where = 'country = "DE" and tier in ("gold","silver")';
    const matching = Array.from({ length: CONTACTS + 100 }, (_, i) => contact(i, true)).filter(
      (c) => c.country === 'DE' && (c.tier === 'gold' || c.tier === 'silver'),
    );
    // Three of the segment opted out (one of them only a gold contact since the update), and one contact outside it.
    const optedOut = [matching[0]!, matching.find((c) => Number(c.phone.slice(-4)) % 4 > 1)!, matching[500]!].map((c) => c.phone);
    for (const phone of [...optedOut, phoneOf(2)]) await pipeline.context.ledger.addPortfolioOptOut('retail', phone);

    const id = await pipeline.send('segment', NUMBER_A, [], 'spring_promo', { audience: 'weekly', where, campaign: undefined });
    const rows = await pipeline.rows(id);
    expect(rows.map((r) => r.phone).sort()).toEqual(matching.map((c) => c.phone).sort());
    const skipped = rows.filter((r) => r.status === 'skipped');
    expect(skipped.map((r) => [r.phone, r.errorCode]).sort()).toEqual(optedOut.map((phone) => [phone, 'OPTED_OUT']).sort());
    expect(rows.filter((r) => r.status === 'sent')).toHaveLength(matching.length - optedOut.length);
    const definition = await pipeline.context.ledger.getCampaign(id);
    expect(definition?.audience).toEqual({ name: 'weekly', where });
  }, 120_000);

  it('skips MARKETING rows without an opt-in as NO_CONSENT; consent show gives each entry its source', async () => {
    const consented = [phoneOf(9001), phoneOf(9002)];
    const file = pipeline.file('signup.csv');
    await writeFile(file, `phone,source,time\n${consented[0]},web form,2026-10-01T09:00:00Z\n${consented[1]},,\n`);
    const imported = await importConsent(pipeline.context, { file, target, source: 'shop counter' });
    expect(imported).toMatchObject({ recorded: 2, rejected: 0 });
    await pipeline.context.ledger.addPortfolioOptOut('retail', consented[1]!);
    await pipeline.context.ledger.removePortfolioOptOut('retail', consented[1]!);

    const id = await pipeline.send('consent', NUMBER_B, [...consented, phoneOf(9005)], 'spring_promo', { requireConsent: true });
    const rows = await pipeline.rows(id);
    expect(rows.map((r) => [r.phone, r.status, r.errorCode])).toEqual([
      [consented[0], 'sent', undefined],
      [consented[1], 'sent', undefined],
      [phoneOf(9005), 'skipped', 'NO_CONSENT'],
    ]);
    // A utility template is not MARKETING: --require-consent lets it through.
    const utility = await pipeline.send('consent-utility', NUMBER_B, [phoneOf(9005)], 'order_update', { requireConsent: true });
    expect((await pipeline.rows(utility))[0]).toMatchObject({ status: 'sent' });

    const history = await consentHistory(pipeline.context, target, consented[1]!);
    expect(history.entries.map((e) => [e.kind, e.source])).toEqual([
      ['opt-in', 'operator: campaign optouts remove'],
      ['opt-out', 'operator: campaign optouts add'],
      ['opt-in', 'shop counter'],
    ]);
    const first = await consentHistory(pipeline.context, target, consented[0]!);
    expect(first.entries).toEqual([{ phone: consented[0], kind: 'opt-in', at: Date.parse('2026-10-01T09:00:00Z'), source: 'web form' }]);
  }, 60_000);

  it('--test-to sends the first rows to the test numbers only, outside the duplicate window', async () => {
    const team = ['+4917000000001', '+4917000000002'];
    const before = pipeline.sandbox.accepted().length;
    const recipients = [phoneOf(40), phoneOf(41), phoneOf(42)];
    for (let run = 0; run < 2; run++) {
      const id = await pipeline.send(`test-${run}`, NUMBER_A, recipients, 'spring_promo', { testTo: team, campaign: undefined });
      const rows = await pipeline.rows(id);
      expect(rows.map((r) => [r.phone, r.status])).toEqual(team.map((phone) => [phone, 'sent']));
      const definition = await pipeline.context.ledger.getCampaign(id);
      expect(definition?.test).toBe(true);
      expect(definition?.name).toMatch(/^TEST: /);
    }
    // What `send --test-to` prints as they come: each message's ID, then its delivery, until every one is delivered.
    const lines: string[] = [];
    const id = await pipeline.send('test-watched', NUMBER_A, recipients, 'spring_promo', { testTo: team.slice(0, 1), campaign: undefined });
    const watched = await watchTestSend(pipeline.context, id, (line) => lines.push(line), { pollMs: 50, watchMs: 20_000 });
    expect(watched.every((r) => r.deliveredAt !== undefined)).toBe(true);
    expect(lines.at(-1)).toMatch(new RegExp(`^  \\${team[0]}: sent wamid\\.\\S+, (delivered|read)$`));
    // Twice each (a test is sent again as often as asked), once more for the first, and nobody else.
    expect(
      pipeline.sandbox
        .accepted()
        .slice(before)
        .map((m) => m.to)
        .sort(),
    ).toEqual([...team, ...team, team[0]].sort());
  }, 60_000);
});
