import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryLedger, StatusUpdate } from '../../src/campaigns/ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { WebhookConsumer } from '../../src/webhooks/webhook-consumer.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER, ingestQueuedCampaign, sendAllAsW } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

/**
 * A batch whose apply failed (Redis failed over under the consumer) is applied again before
 * anything newer, not CLAIM_IDLE_MS later: the in-doubt rule reads statuses of later sends, with
 * none of a row's own, as proof that its request never reached Meta, so a status applied late
 * would have its row sent twice. A batch that keeps failing holds up the rest for claimIdleMs
 * once, then waits its turn as before.
 */
const NUMBER = LEDGER_TEST_NUMBER;
const ID = 'retry';

describe('the webhook consumer after a failed batch (real Redis)', () => {
  let redis: Redis;
  let reader: Redis;
  let prefix: string;
  let ledger: RedisLedger;

  beforeEach(async () => {
    redis = testRedis();
    reader = testRedis();
    prefix = freshPrefix('webhook-retry');
    ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, ID, 2);
    await sendAllAsW(ledger);
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await reader.quit();
    await redis.quit();
  });

  /** The ledger, but applyStatuses fails while `failing` says so for the message IDs it is given; `applied` lists what got through. */
  function flakyLedger(failing: (wamids: string[]) => boolean): { ledger: DeliveryLedger; applied: string[][] } {
    const applied: string[][] = [];
    const flaky = new Proxy(ledger, {
      get(target, property) {
        if (property === 'applyStatuses')
          return async (updates: readonly StatusUpdate[]) => {
            const wamids = updates.map((u) => u.wamid);
            if (failing(wamids)) throw new Error("READONLY You can't write against a read only replica.");
            const outcomes = await target.applyStatuses(updates);
            applied.push(wamids);
            return outcomes;
          };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { ledger: flaky, applied };
  }

  function consumer(on: DeliveryLedger, claimIdleMs = 30_000): WebhookConsumer {
    return new WebhookConsumer({ redis: reader, prefix, ledger: on, logger: silentLogger(), consumer: 'c1', blockMs: 50, claimIdleMs });
  }

  /** Appends Meta's body with one `delivered` status for row `row` (message ID w<row>). */
  async function deliveredPost(row: number): Promise<void> {
    const status = { id: `w${row}`, status: 'delivered', timestamp: String(1000 + row), recipient_id: phoneNumber(row).slice(1) };
    const value = { messaging_product: 'whatsapp', metadata: { display_phone_number: '1', phone_number_id: NUMBER }, statuses: [status] };
    const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'messages', value }] }] });
    await redis.xadd(webhookKeys(prefix).inbox, '*', 'body', body, 'at', Date.now());
  }

  it('applies the failed batch again first, before a newer one, and leaves the inbox empty', async () => {
    let failures = 1;
    const { ledger: flaky, applied } = flakyLedger(() => failures-- > 0);
    const c = consumer(flaky);
    await deliveredPost(1);
    await expect(c.processOnce()).rejects.toThrow(/READONLY/);
    await deliveredPost(2);
    expect(await c.processOnce()).toBe(1);
    expect(await c.processOnce()).toBe(1);
    expect(applied).toStrictEqual([['w1'], ['w2']]);
    expect((await ledger.status(ID))?.counts).toMatchObject({ delivered: 2 });
    expect(await redis.xlen(webhookKeys(prefix).inbox)).toBe(0);
  });

  it('a batch that keeps failing holds up a newer one for claimIdleMs at most', async () => {
    const { ledger: flaky, applied } = flakyLedger((wamids) => wamids.includes('w1'));
    const c = consumer(flaky, 300);
    await deliveredPost(1);
    await expect(c.processOnce()).rejects.toThrow(/READONLY/);
    await deliveredPost(2);
    const w2Applied = async (): Promise<boolean> => {
      await c.processOnce().catch(() => 0);
      return applied.some((w) => w.includes('w2'));
    };
    await waitFor(w2Applied, { what: 'w2 applied', timeoutMs: 5000 });
    expect(applied).toStrictEqual([['w2']]);
    expect(await redis.xlen(webhookKeys(prefix).inbox)).toBe(1);
  });
});
