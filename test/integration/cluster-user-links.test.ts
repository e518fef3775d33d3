import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { settleDeliveryEvents } from '../../src/campaigns/settle/delivery-events.js';
import { numberScope } from '../../src/redis/key-scope.js';
import { portfolioScope } from '../../src/redis/pacer/portfolio-keys.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { RedisUserLinks } from '../../src/redis/webhooks/redis-user-links.js';
import { phoneNumber } from '../support/csv-files.js';
import { feedAll, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix } from '../support/redis.js';
import { RedisClusterUnderTest } from '../support/redis-cluster.js';

/**
 * User links on a real 3-master Redis Cluster: the portfolio's links and waiting events live in
 * the portfolio's slot, each number's rows, windows and opt-outs in the number's. Learning,
 * parking, releasing and pruning are one-slot commands and transactions (a CROSSSLOT would fail
 * them), and a user_id-only STOP and message on number B, joined through the link a status on
 * number A taught, reach the phone's window on B and the portfolio's opt-outs.
 */
describe('Redis Cluster: user links of a portfolio across its numbers', () => {
  let cluster: RedisClusterUnderTest;
  let client: Cluster;
  const prefix = freshPrefix('cluster-user-links');

  beforeAll(async () => {
    cluster = await RedisClusterUnderTest.start({ masters: 3 });
    client = cluster.client();
  }, 60_000);

  afterAll(async () => {
    await client?.quit();
    await cluster?.stop();
  });

  /** Two numbers on two masters, neither the one holding the portfolio's links. */
  async function numbersApart(): Promise<[string, string]> {
    const taken = new Set([await cluster.masterOf(`${portfolioScope(prefix, 'default')}:user:links`)]);
    const found: string[] = [];
    for (let i = 0; found.length < 2 && i < 1000; i++) {
      const number = String(106540352242922 + i);
      const master = await cluster.masterOf(numberScope(prefix, number));
      if (!taken.has(master)) {
        taken.add(master);
        found.push(number);
      }
    }
    const [a, b] = found;
    if (a === undefined || b === undefined) throw new Error('the cluster gave fewer than two numbers apart');
    return [a, b];
  }

  it("a status on A links the user; their user_id-only message and STOP on B reach their phone's window and opt-outs", async () => {
    const [A, B] = await numbersApart();
    const ledger = new RedisLedger(client, prefix);
    const links = new RedisUserLinks(client, prefix, new Map(), 86_400_000);
    const phone = phoneNumber(1);
    const definition: CampaignDefinition = { ...ledgerTestDefinition(`m${A}`), phoneNumberId: A, category: 'MARKETING' };
    await ledger.createCampaign(definition);
    await ledger.recordIngested(definition.id, A, [queuedRow(1, phone)]);
    await ledger.finishIngest(definition.id);
    const { jobs } = await feedAll(ledger, A);
    for (const job of jobs) {
      await ledger.claim(job, A);
      await ledger.settle(job, { status: 'sent', wamid: 'w1' }, A);
    }
    const at = Date.now();
    const status = { phoneNumberId: A, wamid: 'w1', kind: 'delivered' as const, at, recipientId: phone.slice(1), userId: 'DE.1' };
    await settleDeliveryEvents(ledger, { statuses: [status], inbound: [], preferences: [] }, undefined, links);

    const settled = await settleDeliveryEvents(
      ledger,
      {
        statuses: [],
        inbound: [{ phoneNumberId: B, userId: 'DE.1', wamid: 'in1', at, optOut: false }],
        preferences: [
          { phoneNumberId: B, userId: 'DE.1', value: 'stop', at },
          // Nobody linked yet: kept in the portfolio's slot.
          { phoneNumberId: B, userId: 'DE.2', value: 'stop', at },
        ],
      },
      undefined,
      links,
    );
    expect(settled.counts).toMatchObject({ inbound: 1, preferences: 1, unlinked: 1 });
    expect(await ledger.serviceWindowsOpen(B, [phone.slice(1)])).toEqual([true]);
    expect([...(await ledger.optOutsOfPortfolio('default')).keys()]).toEqual([phone]);

    // A send to DE.2's phone links them: their STOP is applied then.
    const other = { ...status, wamid: 'w-other', recipientId: phoneNumber(2).slice(1), userId: 'DE.2' };
    const later = await settleDeliveryEvents(ledger, { statuses: [other], inbound: [], preferences: [] }, undefined, links);
    expect(later.counts).toMatchObject({ linked: 1, preferences: 1 });
    expect([...(await ledger.optOutsOfPortfolio('default')).keys()].sort()).toEqual([phone, phoneNumber(2)].sort());

    // Pruning runs in the portfolio's slot too: a quarter of the retention later the walk has been round every link.
    await links.learn([{ phoneNumberId: B, userId: 'DE.3', waId: '4915100000003', at: at - 2 * 86_400_000 }]);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 86_400_000 / 4 });
    try {
      await links.learn([{ phoneNumberId: B, userId: 'DE.4', waId: '4915100000004', at }]);
    } finally {
      vi.useRealTimers();
    }
    expect(await links.phonesOf(A, ['DE.1', 'DE.3', 'DE.4'])).toEqual([phone.slice(1), undefined, '4915100000004']);
  }, 60_000);
});
