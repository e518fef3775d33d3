import { describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import type { RedisLedger } from '../../src/redis/redis-ledger.js';
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
