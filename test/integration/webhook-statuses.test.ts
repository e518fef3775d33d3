import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDeliveryEvent, type DeliveryEvent, type DeliveryState } from '../support/delivery-state.js';
import type { StatusUpdate } from '../../src/campaigns/ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { WebhookConsumer } from '../../src/webhooks/webhook-consumer.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow, feedAll } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * Status webhooks from the inbox stream to the rows (real Redis): the Lua applies exactly the
 * rule stated in test/support/delivery-state.ts whatever the order; a POST of 1,000 statuses is
 * applied whole; a status that comes before its send is recorded waits and is applied then;
 * one for a message of another tool is counted and dropped after the park time.
 */
const NUMBER = LEDGER_TEST_NUMBER;
const ID = 'wh';

describe('status webhooks applied to rows (real Redis)', () => {
  let redis: Redis;
  let reader: Redis;
  let prefix: string;
  let ledger: RedisLedger;

  beforeEach(() => {
    redis = testRedis();
    reader = testRedis();
    prefix = freshPrefix('webhook-statuses');
    ledger = new RedisLedger(redis, prefix);
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await reader.quit();
    await redis.quit();
  });

  /** A campaign of n rows, each sent with message ID w<row>. */
  async function sentCampaign(n: number, sentRows = n): Promise<void> {
    await ledger.createCampaign(ledgerTestDefinition(ID));
    await ledger.recordIngested(
      ID,
      NUMBER,
      Array.from({ length: n }, (_, i) => queuedRow(i + 1)),
    );
    await ledger.finishIngest(ID);
    const { jobs } = await feedAll(ledger);
    for (const job of jobs.slice(0, sentRows)) {
      await ledger.claim(job, NUMBER);
      await ledger.settle(job, { status: 'sent', wamid: `w${job.row}` }, NUMBER);
    }
  }

  function consumer(options: { parkMs?: number } = {}): WebhookConsumer {
    return new WebhookConsumer({
      redis: reader,
      prefix,
      ledger,
      logger: silentLogger(),
      consumer: 'test',
      blockMs: 50,
      parkedRetryMs: 0,
      ...options,
    });
  }

  /** A webhook body as Meta sends it: one entry, one change, these statuses. */
  function body(statuses: object[]): string {
    return JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'messages',
              value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '1', phone_number_id: NUMBER }, statuses },
            },
          ],
        },
      ],
    });
  }
  const item = (row: number, status: string, seconds: number, extra: object = {}) => ({
    id: `w${row}`,
    status,
    timestamp: String(seconds),
    recipient_id: phoneNumber(row).slice(1),
    ...extra,
  });

  it('the script applies the same rule as delivery-state.ts, in any order and split over calls (60 rows, random event sets)', async () => {
    await sentCampaign(60);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const kinds = ['sent', 'delivered', 'read', 'failed'] as const;
    const expected = new Map<number, DeliveryState>();
    const all: StatusUpdate[] = [];
    for (let row = 1; row <= 60; row++) {
      const events: DeliveryEvent[] = [];
      for (let i = 0; i < 2 + Math.floor(next() * 5); i++) {
        const kind = kinds[Math.floor(next() * 4)] ?? 'sent';
        const event: DeliveryEvent = {
          kind,
          at: (1 + Math.floor(next() * 4)) * 1000,
          ...(kind === 'failed' ? { code: next() < 0.5 ? '131026' : '131049', detail: 'd' } : {}),
        };
        events.push(event, ...(next() < 0.3 ? [event] : []));
      }
      expected.set(row, events.reduce(applyDeliveryEvent, { status: 'sent' } as DeliveryState));
      for (const e of events)
        all.push({
          phoneNumberId: NUMBER,
          wamid: `w${row}`,
          kind: e.kind,
          at: e.at,
          ...(e.code === undefined ? {} : { code: e.code, detail: e.detail ?? '' }),
        });
    }
    // Shuffled across rows and kinds, applied in calls of 37.
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [all[i], all[j]] = [all[j] as StatusUpdate, all[i] as StatusUpdate];
    }
    for (let i = 0; i < all.length; i += 37) await ledger.applyStatuses(all.slice(i, i + 37));
    const rows = [];
    for await (const page of ledger.rows(ID)) rows.push(...page);
    for (const r of rows) {
      const want = expected.get(r.row);
      expect({ row: r.row, status: r.status, deliveredAt: r.deliveredAt, readAt: r.readAt, code: r.errorCode }).toEqual({
        row: r.row,
        status: want?.status,
        deliveredAt: want?.deliveredAt,
        readAt: want?.readAt,
        code: want?.code,
      });
    }
    const counts = (await ledger.status(ID))?.counts;
    expect(counts?.delivered).toBe([...expected.values()].filter((s) => s.deliveredAt !== undefined).length);
    expect(counts?.read).toBe([...expected.values()].filter((s) => s.readAt !== undefined).length);
    expect((counts?.sent ?? 0) + (counts?.failed ?? 0)).toBe(60);
  });

  it('a POST of 1,000 statuses is applied whole, and the same POST again (Meta retries) changes nothing', async () => {
    await sentCampaign(500);
    const statuses = Array.from({ length: 500 }, (_, i) => [item(i + 1, 'delivered', 1000), item(i + 1, 'read', 2000)]).flat();
    const raw = body(statuses);
    await redis.xadd(webhookKeys(prefix).inbox, '*', 'body', raw, 'at', Date.now());
    await redis.xadd(webhookKeys(prefix).inbox, '*', 'body', raw, 'at', Date.now());
    const c = consumer();
    let handled = 0;
    while (handled < 2) handled += await c.processOnce();
    expect((await ledger.status(ID))?.counts).toMatchObject({ sent: 500, delivered: 500, read: 500 });
    expect(await redis.xlen(webhookKeys(prefix).inbox)).toBe(0);
    expect(await redis.hgetall(webhookKeys(prefix).stats)).toMatchObject({ posts: '2', statuses: '2000', applied: '1000', same: '1000' });
  });

  it(
    'a status that comes before its send is recorded waits, and is applied once the send is; another ' +
      'tool’s message is counted and dropped after the park time',
    async () => {
      await sentCampaign(2, 1);
      // Row 2 was fed but not answered yet; its status names only its message ID (no callback data).
      await redis.xadd(
        webhookKeys(prefix).inbox,
        '*',
        'body',
        body([item(2, 'delivered', 1500), item(99, 'delivered', 1500)]),
        'at',
        Date.now(),
      );
      const c = consumer({ parkMs: 60_000 });
      while ((await c.processOnce()) === 0);
      expect(await redis.zcard(webhookKeys(prefix).parked)).toBe(2);
      const { jobs } = { jobs: [{ campaignId: ID, row: 2 }] };
      await ledger.claim(jobs[0] ?? { campaignId: ID, row: 2 }, NUMBER);
      await ledger.settle(jobs[0] ?? { campaignId: ID, row: 2 }, { status: 'sent', wamid: 'w2' }, NUMBER);
      await c.processOnce();
      expect(await redis.zcard(webhookKeys(prefix).parked)).toBe(1);
      expect((await ledger.status(ID))?.counts).toMatchObject({ sent: 2, delivered: 1 });

      const late = consumer({ parkMs: 0 });
      await late.processOnce();
      expect(await redis.zcard(webhookKeys(prefix).parked)).toBe(0);
      expect(await redis.hget(webhookKeys(prefix).stats, 'foreign')).toBe('1');
    },
  );

  it('a consumer that died after reading entries (before applying them) loses nothing: another takes them and applies them', async () => {
    await sentCampaign(3);
    const { inbox } = webhookKeys(prefix);
    await redis.xadd(inbox, '*', 'body', body([item(1, 'delivered', 1000), item(2, 'read', 1000)]), 'at', Date.now());
    // The dead consumer: it joined the group and read the entry, then vanished without an acknowledgement.
    await redis.xgroup('CREATE', inbox, 'appliers', '0', 'MKSTREAM');
    const read = (await redis.xreadgroup('GROUP', 'appliers', 'dead', 'COUNT', 10, 'STREAMS', inbox, '>')) as [string, unknown[]][];
    expect(read[0]?.[1]).toHaveLength(1);
    expect((await ledger.status(ID))?.counts).toMatchObject({ delivered: 0 });

    const live = new WebhookConsumer({
      redis: reader,
      prefix,
      ledger,
      logger: silentLogger(),
      consumer: 'live',
      blockMs: 50,
      parkedRetryMs: 0,
      claimIdleMs: 0,
    });
    expect(await live.processOnce()).toBe(1);
    expect((await ledger.status(ID))?.counts).toMatchObject({ delivered: 2, read: 1 });
    expect(await redis.xlen(inbox)).toBe(0);
    const pending = (await redis.xpending(inbox, 'appliers')) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });

  it('a body that is not a webhook is acknowledged and counted, not retried forever', async () => {
    await redis.xadd(webhookKeys(prefix).inbox, '*', 'body', 'not json', 'at', Date.now());
    const c = consumer();
    while ((await c.processOnce()) === 0);
    expect(await redis.xlen(webhookKeys(prefix).inbox)).toBe(0);
    expect(await redis.hget(webhookKeys(prefix).stats, 'unreadable')).toBe('1');
  });
});
