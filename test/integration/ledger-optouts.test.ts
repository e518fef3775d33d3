import { describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import type { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { phoneNumber } from '../support/csv-files.js';
import { feedAll, LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { ledgersPerTest } from '../support/test-ledger.js';

const NUMBER = LEDGER_TEST_NUMBER;

/** A campaign of the fixture's template in the given category (absent: a campaign of a version that did not keep it). */
function definition(id: string, category?: string, phoneNumberId = NUMBER): CampaignDefinition {
  return { ...ledgerTestDefinition(id), phoneNumberId, ...(category === undefined ? {} : { category }) };
}

/** Rows 1..n queued, the ingest finished and every row fed: jobs waiting for their claim. */
async function waiting(ledger: RedisLedger, def: CampaignDefinition, n: number): Promise<void> {
  await ledger.createCampaign(def);
  await ledger.recordIngested(
    def.id,
    def.phoneNumberId,
    Array.from({ length: n }, (_, i) => queuedRow(i + 1)),
  );
  await ledger.finishIngest(def.id);
  await feedAll(ledger, def.phoneNumberId);
}

async function rowsOf(ledger: RedisLedger, id: string): Promise<RowRecord[]> {
  const rows: RowRecord[] = [];
  for await (const page of ledger.rows(id)) rows.push(...page);
  return rows;
}

describe('opt-outs at send time: claim and retry (real Redis)', () => {
  const open = ledgersPerTest('optouts-claim');

  it('a claim skips an opted-out recipient’s MARKETING row as OPTED_OUT, releases its job, and sends the others', async () => {
    const { ledger, redis, prefix } = open();
    await waiting(ledger, definition('m', 'MARKETING'), 3);
    // The STOP comes after the rows were read and fed.
    await ledger.applyPreferences([{ phoneNumberId: NUMBER, waId: phoneNumber(2).slice(1), value: 'stop', at: 1000 }]);

    expect(await ledger.claim({ campaignId: 'm', row: 1 }, NUMBER)).toMatchObject({ outcome: 'claimed' });
    expect(await ledger.claim({ campaignId: 'm', row: 2 }, NUMBER)).toStrictEqual({ outcome: 'settled', status: 'skipped' });
    const [, row2] = await rowsOf(ledger, 'm');
    expect(row2).toMatchObject({ status: 'skipped', errorCode: 'OPTED_OUT' });
    expect(row2?.errorDetail).toMatch(/stopped marketing messages in WhatsApp.*MARKETING template, so it is not sent$/);
    expect((await ledger.status('m'))?.counts).toMatchObject({ skipped: 1, sending: 1, queued: 1 });
    // Its job left the feed window in the same step; the claimed row's job is still in it.
    expect(await redis.zrange(`${prefix}:{${NUMBER}}:feed:${NUMBER}:window`, 0, -1)).toStrictEqual(['m-1', 'm-3']);
  });

  it('a UTILITY campaign’s row still reaches an opted-out recipient; a text campaign’s does not', async () => {
    const { ledger } = open();
    await ledger.addOptOut(NUMBER, phoneNumber(1));
    await waiting(ledger, definition('u', 'UTILITY'), 1);
    expect(await ledger.claim({ campaignId: 'u', row: 1 }, NUMBER)).toMatchObject({ outcome: 'claimed' });

    const { id, createdAt, source } = definition('t');
    const text: CampaignDefinition = { id, createdAt, source, phoneNumberId: NUMBER, text: { body: 'Hi', previewUrl: false, columns: [] } };
    await waiting(ledger, text, 1);
    expect(await ledger.claim({ campaignId: 't', row: 1 }, NUMBER)).toStrictEqual({
      outcome: 'settled',
      status: 'skipped',
      completedCampaign: true,
    });
    expect((await rowsOf(ledger, 't'))[0]?.errorDetail).toMatch(/campaign optouts add.*a text campaign, so it is not sent$/);
  });

  it('a resume newer than the stop lifts it before the claim; an older one does not', async () => {
    const { ledger } = open();
    const waId = phoneNumber(1).slice(1);
    await waiting(ledger, definition('m', 'MARKETING'), 1);
    await ledger.applyPreferences([
      { phoneNumberId: NUMBER, waId, value: 'stop', at: 2000 },
      { phoneNumberId: NUMBER, waId, value: 'resume', at: 1000 },
    ]);
    expect((await ledger.optOuts(NUMBER)).has(phoneNumber(1))).toBe(true);
    await ledger.applyPreferences([{ phoneNumberId: NUMBER, waId, value: 'resume', at: 3000 }]);
    expect(await ledger.claim({ campaignId: 'm', row: 1 }, NUMBER)).toMatchObject({ outcome: 'claimed' });
  });

  it('retry never resends a row that failed with 131050, nor one whose recipient is opted out now', async () => {
    const { ledger } = open();
    await waiting(ledger, definition('m', 'MARKETING'), 4);
    for (const row of [1, 2, 3, 4]) await ledger.claim({ campaignId: 'm', row }, NUMBER);
    await ledger.settle({ campaignId: 'm', row: 1 }, { status: 'failed', errorCode: '131050', errorDetail: 'stopped marketing' }, NUMBER);
    await ledger.settle({ campaignId: 'm', row: 2 }, { status: 'failed', errorCode: '131026', errorDetail: 'undeliverable' }, NUMBER);
    await ledger.settle({ campaignId: 'm', row: 3 }, { status: 'failed', errorCode: '131026', errorDetail: 'undeliverable' }, NUMBER);
    await ledger.settle({ campaignId: 'm', row: 4 }, { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'x' }, NUMBER);
    // Row 3's recipient sent an opt-out keyword since.
    await ledger.applyInbound([{ phoneNumberId: NUMBER, waId: phoneNumber(3).slice(1), wamid: 'in.1', at: 5000, optOut: true }]);

    expect(await ledger.markForRetry('m', 1, 4, { codes: [], failed: true, unknown: true })).toMatchObject({
      requeued: 2,
      optedOut: 2,
    });
    expect((await rowsOf(ledger, 'm')).map((r) => r.status)).toStrictEqual(['failed', 'queued', 'failed', 'queued']);
  });

  it('retry of a UTILITY campaign resends an opted-out recipient’s failed row (opt-outs are for marketing)', async () => {
    const { ledger } = open();
    await waiting(ledger, definition('u', 'UTILITY'), 1);
    await ledger.claim({ campaignId: 'u', row: 1 }, NUMBER);
    await ledger.settle({ campaignId: 'u', row: 1 }, { status: 'failed', errorCode: '131026', errorDetail: 'undeliverable' }, NUMBER);
    await ledger.addOptOut(NUMBER, phoneNumber(1));
    expect(await ledger.markForRetry('u', 1, 1, { codes: [], failed: true, unknown: false })).toMatchObject({ requeued: 1, optedOut: 0 });
  });
});

describe('opt-outs belong to the business portfolio (real Redis)', () => {
  const open = ledgersPerTest('optouts-portfolio');
  // A and B share the portfolio "shop"; C is in "retail"; D is in "shop" and has no campaign until told.
  const [A, B, C, D] = ['1001', '1002', '2001', '1003'];
  const portfolios = new Map([
    [A, 'shop'],
    [B, 'shop'],
    [D, 'shop'],
    [C, 'retail'],
  ]);
  const waId = phoneNumber(1).slice(1);

  /** A MARKETING campaign with one fed row to phoneNumber(1) on each number given. */
  async function campaignsOn(ledger: RedisLedger, ...numbers: string[]): Promise<void> {
    for (const number of numbers) await waiting(ledger, definition(`m${number}`, 'MARKETING', number), 1);
  }

  const claimOn = async (ledger: RedisLedger, number: string) => (await ledger.claim({ campaignId: `m${number}`, row: 1 }, number)).outcome;

  it('a user_preferences stop on A skips the recipient at the claim on B, not on C of another portfolio', async () => {
    const { ledger } = open({ portfolios });
    await campaignsOn(ledger, A, B, C);
    await ledger.applyPreferences([{ phoneNumberId: A, waId, value: 'stop', at: 1000 }]);
    expect([await claimOn(ledger, A), await claimOn(ledger, B), await claimOn(ledger, C)]).toStrictEqual(['settled', 'settled', 'claimed']);
    expect((await ledger.optOuts(B)).get(phoneNumber(1))).toMatchObject({ via: 'user_preferences', at: 1000 });
    expect(await ledger.optOuts(C)).toStrictEqual(new Map());
  });

  it('an opt-out keyword on A holds on B, with its source', async () => {
    const { ledger } = open({ portfolios });
    await campaignsOn(ledger, A, B, C);
    await ledger.applyInbound([{ phoneNumberId: A, waId, wamid: 'in.1', at: 4000, optOut: true }]);
    expect([await claimOn(ledger, B), await claimOn(ledger, C)]).toStrictEqual(['settled', 'claimed']);
    expect((await ledger.optOuts(B)).get(phoneNumber(1))).toMatchObject({ via: 'keyword', at: 4000 });
  });

  it('a 131050 failed status on A holds on B', async () => {
    const { ledger } = open({ portfolios });
    await waiting(ledger, definition('first', 'MARKETING', A), 1);
    await ledger.claim({ campaignId: 'first', row: 1 }, A);
    await ledger.settle({ campaignId: 'first', row: 1 }, { status: 'sent', wamid: 'wamid.1' }, A);
    await campaignsOn(ledger, B, C);
    const [outcome] = await ledger.applyStatuses([
      { phoneNumberId: A, wamid: 'wamid.1', kind: 'failed', at: 2000, code: '131050', detail: 'stopped marketing' },
    ]);
    expect(outcome?.outcome).toBe('applied');
    expect([await claimOn(ledger, B), await claimOn(ledger, C)]).toStrictEqual(['settled', 'claimed']);
    expect((await ledger.optOuts(B)).get(phoneNumber(1))).toMatchObject({ campaignId: 'first', row: 1 });
  });

  it('an operator’s add on A holds on B; the operator’s remove lifts it on both', async () => {
    const { ledger } = open({ portfolios });
    await campaignsOn(ledger, A, B);
    expect(await ledger.addOptOut(A, phoneNumber(1))).toBe(true);
    expect(await ledger.addOptOut(B, phoneNumber(1))).toBe(false);
    expect((await ledger.optOuts(B)).get(phoneNumber(1))).toMatchObject({ via: 'operator' });
    expect(await ledger.removeOptOut(B, phoneNumber(1))).toBe(true);
    expect([await claimOn(ledger, A), await claimOn(ledger, B)]).toStrictEqual(['claimed', 'claimed']);
  });

  it('a resume newer than the stop, on another number, lifts it everywhere; an older one lifts nothing', async () => {
    const { ledger } = open({ portfolios });
    await campaignsOn(ledger, A, B);
    await ledger.applyPreferences([{ phoneNumberId: A, waId, value: 'stop', at: 2000 }]);
    await ledger.applyPreferences([{ phoneNumberId: B, waId, value: 'resume', at: 1000 }]);
    expect((await ledger.optOuts(A)).has(phoneNumber(1))).toBe(true);
    await ledger.applyPreferences([{ phoneNumberId: B, waId, value: 'resume', at: 3000 }]);
    expect([await claimOn(ledger, A), await claimOn(ledger, B)]).toStrictEqual(['claimed', 'claimed']);
    // The stop that comes late (older than the resume) changes nothing on either.
    await ledger.applyPreferences([{ phoneNumberId: A, waId, value: 'stop', at: 2500 }]);
    expect((await ledger.optOuts(B)).has(phoneNumber(1))).toBe(false);
  });

  it('a number that gets its first campaign later takes the portfolio’s opt-outs (one of another portfolio does not)', async () => {
    const { ledger } = open({ portfolios });
    await campaignsOn(ledger, A);
    await ledger.applyPreferences([{ phoneNumberId: A, waId, value: 'stop', at: 1000 }]);
    await ledger.addOptOut(A, phoneNumber(2));
    await campaignsOn(ledger, D, C);
    expect([await claimOn(ledger, D), await claimOn(ledger, C)]).toStrictEqual(['settled', 'claimed']);
    expect([...(await ledger.optOuts(D)).keys()].sort()).toStrictEqual([phoneNumber(1), phoneNumber(2)]);
    // Its copy keeps the stop's time: an older resume on it is still older.
    await ledger.applyPreferences([{ phoneNumberId: D, waId, value: 'resume', at: 500 }]);
    expect((await ledger.optOuts(D)).has(phoneNumber(1))).toBe(true);
  });

  it('a portfolio lift reaches a number that learnt the opt-out before its first campaign; that campaign does not revive it', async () => {
    const { ledger } = open({ portfolios });
    // E is in no campaign and PORTFOLIOS does not name it (the default portfolio): nothing lists it but its copy.
    const E = '3001';
    await ledger.applyInbound([{ phoneNumberId: E, waId, wamid: 'in.1', at: 4000, optOut: true }]);
    expect((await ledger.optOutsOfPortfolio('default')).has(phoneNumber(1))).toBe(true);
    expect(await ledger.removePortfolioOptOut('default', phoneNumber(1))).toBe(true);
    await campaignsOn(ledger, E);
    expect(await claimOn(ledger, E)).toBe('claimed');
    expect(await ledger.optOutsOfPortfolio('default')).toStrictEqual(new Map());
  });

  it('a number’s own opt-outs (kept before they were shared) go to its whole portfolio when it is next registered', async () => {
    const { ledger, redis, prefix } = open({ portfolios });
    await campaignsOn(ledger, B);
    await redis.hset(`${prefix}:{${A}}:optouts:${A}`, phoneNumber(1), JSON.stringify({ campaignId: 'old', row: 3, at: 10 }));
    await campaignsOn(ledger, A);
    expect(await claimOn(ledger, B)).toBe('settled');
    expect((await ledger.optOuts(B)).get(phoneNumber(1))).toMatchObject({ campaignId: 'old', row: 3 });
  });
});

describe('a template Meta moves to MARKETING: its running campaigns follow (real Redis)', () => {
  const open = ledgersPerTest('optouts-category');
  const move = (value: string, previous: string, at: number) =>
    [{ kind: 'category', name: 'order_update', language: 'en_US', value, previous, at }] as const;

  it('a UTILITY campaign whose template turns MARKETING skips opted-out recipients at the next claim, until it moves back', async () => {
    const { ledger } = open();
    for (const row of [1, 2, 3]) await ledger.addOptOut(NUMBER, phoneNumber(row));
    await waiting(ledger, definition('moved', 'UTILITY'), 3);
    const other: CampaignDefinition = {
      ...definition('other', 'UTILITY'),
      plan: { name: 'shipping_update', language: 'en_US', parameterFormat: 'POSITIONAL', slots: [], bodyText: 'Hi' },
    };
    await waiting(ledger, other, 1);
    expect(await ledger.claim({ campaignId: 'moved', row: 1 }, NUMBER)).toMatchObject({ outcome: 'claimed' });

    await ledger.recordTemplateInfo(move('MARKETING', 'UTILITY', 1000));
    expect(await ledger.claim({ campaignId: 'moved', row: 2 }, NUMBER)).toMatchObject({ outcome: 'settled', status: 'skipped' });
    expect((await rowsOf(ledger, 'moved'))[1]).toMatchObject({ status: 'skipped', errorCode: 'OPTED_OUT' });
    // Another template's campaign is untouched.
    expect(await ledger.claim({ campaignId: 'other', row: 1 }, NUMBER)).toMatchObject({ outcome: 'claimed' });

    await ledger.recordTemplateInfo(move('UTILITY', 'MARKETING', 2000));
    expect(await ledger.claim({ campaignId: 'moved', row: 3 }, NUMBER)).toMatchObject({ outcome: 'claimed' });
  });
});
