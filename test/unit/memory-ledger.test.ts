import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../src/campaigns/memory-ledger.js';
import { describeLedgerContract, fakeClock } from '../support/ledger-contract.js';
import { LEDGER_TEST_NUMBER, feedAll, ingestQueuedCampaign, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';

/**
 * MemoryLedger keeps RedisLedger's contract: the shared scenarios (test/support/ledger-contract.ts)
 * run here on a fake clock, and in test/integration/ledger-contract.test.ts on a real Redis.
 */
describeLedgerContract('MemoryLedger (fake clock)', (options = {}) => {
  const clock = fakeClock();
  const ledger = new MemoryLedger({ ...options, now: clock.now });
  return Promise.resolve({ ledger, clock, cleanup: () => Promise.resolve() });
});

/** What only the memory ledger shows: its backlog and window, which the Redis tests read from Redis keys. */
describe('MemoryLedger internals', () => {
  const NUMBER = LEDGER_TEST_NUMBER;

  it('keeps the backlog as "row" / "row:k" entries: parked rows at the front, retried ones at the end', async () => {
    const ledger = new MemoryLedger();
    await ingestQueuedCampaign(ledger, 'c', 4);
    await ledger.feed(NUMBER, { windowSize: 2, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
    expect(ledger.backlog('c')).toEqual(['3', '4']);
    expect(ledger.windowJobIds(NUMBER)).toEqual(['c-1', 'c-2']);
    await ledger.claim({ campaignId: 'c', row: 1 }, NUMBER);
    await ledger.settle({ campaignId: 'c', row: 1 }, { status: 'failed', errorCode: '131000', errorDetail: 'x' }, NUMBER);
    await ledger.pause('c', 'x');
    await ledger.claim({ campaignId: 'c', row: 2 }, NUMBER);
    await ledger.markForRetry('c', 1, 4, { codes: [], failed: true, unknown: false });
    expect(ledger.backlog('c')).toEqual(['2:1', '3', '4', '1:1']);
    expect(ledger.windowJobIds(NUMBER)).toEqual([]);
  });

  it('indexes sent message IDs by campaign and row', async () => {
    const ledger = new MemoryLedger();
    await ingestQueuedCampaign(ledger, 'c', 1);
    await feedAll(ledger);
    await ledger.claim({ campaignId: 'c', row: 1 }, NUMBER);
    await ledger.settle({ campaignId: 'c', row: 1 }, { status: 'sent', wamid: 'wamid.1' });
    expect(ledger.wamidOwner('wamid.1')).toBe('c/1');
  });

  it('formats the age of a duplicate as C’s printf does: an exact tie rounds to even', async () => {
    const clock = fakeClock();
    const ledger = new MemoryLedger({ now: clock.now, duplicateWindowMs: 24 * 3_600_000 });
    await ingestQueuedCampaign(ledger, 'a', 1);
    await feedAll(ledger);
    await ledger.claim({ campaignId: 'a', row: 1 }, NUMBER);
    // 0.25 h: printf('%.1f') gives 0.2 where toFixed gives 0.3.
    await clock.advance(900_000);
    await ledger.createCampaign(ledgerTestDefinition('b'));
    const { alreadySent } = await ledger.recordIngested('b', NUMBER, [queuedRow(1)]);
    expect(alreadySent[0]?.detail).toContain(' 0.2 h ago');
    // 0.75 h: 0.8 either way.
    await clock.advance(1_800_000);
    await ledger.createCampaign(ledgerTestDefinition('c'));
    expect((await ledger.recordIngested('c', NUMBER, [queuedRow(1)])).alreadySent[0]?.detail).toContain(' 0.8 h ago');
  });
});
