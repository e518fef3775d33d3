import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import { purgeExpired, runPurge } from '../../src/app/campaign-purge.js';
import type { HistoryEntry } from '../../src/campaigns/history/campaign-history.js';
import { isAppError } from '../../src/errors/app-error.js';
import { HISTORY_CAP, RedisCampaignHistory } from '../../src/redis/history/redis-campaign-history.js';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import { LEDGER_TEST_NUMBER, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { keySlot } from '../support/key-slot.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';

const DAY = 86_400_000;

/**
 * A campaign's history on a real Redis: entries come back newest first, only the newest
 * HISTORY_CAP are kept, the list sits in its campaign's cluster slot, and purge (by hand or
 * by retention) deletes it for good.
 */
describe('campaign history (real Redis)', () => {
  let prefix: string;
  let context: AppContext;
  let history: RedisCampaignHistory;

  beforeEach(async () => {
    prefix = freshPrefix('history');
    context = await openContext([], { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', RETENTION_DAYS: '30' });
    history = new RedisCampaignHistory(context.redis, prefix);
  });

  afterEach(async () => {
    await removePrefix(context.redis, prefix);
    await context.close();
  });

  const entry = (at: number, more: Partial<HistoryEntry> = {}): HistoryEntry => ({
    at,
    actor: { kind: 'cli', name: 'ops' },
    action: 'pause',
    ...more,
  });

  /** A campaign that finished (cancelled before a row was fed), so purge takes it. */
  async function finished(id: string): Promise<void> {
    await ingestQueuedCampaign(context.ledger, id, 3);
    await context.ledger.cancel(id);
    expect((await context.ledger.status(id))?.finishedAt).toBeDefined();
  }

  it('lists entries newest first, each as recorded, in the campaign’s own cluster slot', async () => {
    await ingestQueuedCampaign(context.ledger, 'h-order', 1);
    await history.record('h-order', entry(1000, { action: 'create', actor: { kind: 'token', name: 'crm' }, detail: 'orders.csv' }));
    await history.record('h-order', entry(2000, { actor: { kind: 'dashboard', name: 'alice' }, detail: 'price list' }));
    await history.record('h-order', entry(3000, { action: 'resume', actor: { kind: 'cli', name: '' } }));

    expect(await history.list('h-order')).toStrictEqual([
      { at: 3000, actor: { kind: 'cli', name: '' }, action: 'resume' },
      { at: 2000, actor: { kind: 'dashboard', name: 'alice' }, action: 'pause', detail: 'price list' },
      { at: 1000, actor: { kind: 'token', name: 'crm' }, action: 'create', detail: 'orders.csv' },
    ]);
    // Another process reads the same (nothing is kept in memory but the campaign's number).
    expect(await new RedisCampaignHistory(context.redis, prefix).list('h-order')).toHaveLength(3);
    const keys = campaignLedgerKeys(prefix, LEDGER_TEST_NUMBER, 'h-order');
    expect(await context.redis.llen(keys.history)).toBe(3);
    expect(keySlot(keys.history)).toBe(keySlot(keys.campaign));
  });

  it(`keeps only the newest ${HISTORY_CAP} entries`, async () => {
    await ingestQueuedCampaign(context.ledger, 'h-cap', 1);
    const total = HISTORY_CAP + 25;
    for (let i = 1; i <= total; i++) await history.record('h-cap', entry(i, { detail: `#${i}` }));
    const listed = await history.list('h-cap');
    expect(listed).toHaveLength(HISTORY_CAP);
    expect(listed[0]?.detail).toBe(`#${total}`);
    expect(listed.at(-1)?.detail).toBe(`#${total - HISTORY_CAP + 1}`);
  });

  it('refuses an unknown campaign with CAMPAIGN_NOT_FOUND and lists none for it', async () => {
    const refused = await history.record('h-nope', entry(1)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isAppError(refused) && refused.code).toBe('CAMPAIGN_NOT_FOUND');
    expect(await history.list('h-nope')).toStrictEqual([]);
    expect(await context.redis.keys(`${prefix}:*history*`)).toStrictEqual([]);
  });

  it('leaves out an entry that is not one (damaged or written by hand)', async () => {
    await ingestQueuedCampaign(context.ledger, 'h-bad', 1);
    await history.record('h-bad', entry(1));
    const key = campaignLedgerKeys(prefix, LEDGER_TEST_NUMBER, 'h-bad').history;
    await context.redis.lpush(key, 'not json', JSON.stringify({ at: 2, actor: { kind: 'robot', name: 'x' }, action: 'pause' }));
    await history.record('h-bad', entry(3, { action: 'resume' }));
    expect((await history.list('h-bad')).map((e) => e.at)).toStrictEqual([3, 1]);
  });

  it('goes with `campaign purge`, and nothing is recorded for a purged campaign', async () => {
    await finished('h-purge');
    await finished('h-other');
    await history.record('h-purge', entry(1, { action: 'cancel' }));
    await history.record('h-other', entry(1, { action: 'cancel' }));

    await runPurge(context, 'h-purge');
    expect(await history.list('h-purge')).toStrictEqual([]);
    expect(await context.redis.exists(campaignLedgerKeys(prefix, LEDGER_TEST_NUMBER, 'h-purge').history)).toBe(0);
    await history.record('h-purge', entry(2, { action: 'resume' }));
    expect(await context.redis.exists(campaignLedgerKeys(prefix, LEDGER_TEST_NUMBER, 'h-purge').history)).toBe(0);
    // Another campaign's history stays.
    expect(await history.list('h-other')).toHaveLength(1);
  });

  it('goes with retention (RETENTION_DAYS), as the rest of an expired campaign does', async () => {
    await finished('h-old');
    await history.record('h-old', entry(1, { action: 'cancel' }));
    const finishedAt = (await context.ledger.status('h-old'))?.finishedAt ?? 0;
    expect(await purgeExpired(context, finishedAt + 29 * DAY)).toStrictEqual([]);
    expect(await history.list('h-old')).toHaveLength(1);
    expect(await purgeExpired(context, finishedAt + 31 * DAY)).toStrictEqual(['h-old']);
    expect(await history.list('h-old')).toStrictEqual([]);
  });
});
