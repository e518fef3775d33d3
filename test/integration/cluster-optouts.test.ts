import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { portfolioScope } from '../../src/redis/pacer/portfolio-keys.js';
import { numberScope } from '../../src/redis/key-scope.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { phoneNumber } from '../support/csv-files.js';
import { feedAll, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix } from '../support/redis.js';
import { RedisClusterUnderTest } from '../support/redis-cluster.js';

/**
 * Opt-outs per portfolio on a real 3-master Redis Cluster: the portfolio's record and each
 * number's copy are in different slots (on different masters here), and a script that reached
 * across them would fail with CROSSSLOT. A stop on one number skips the recipient at the claim
 * on another; a newer resume lifts it on both; a number registered later takes the record.
 */
describe('Redis Cluster: a portfolio’s opt-outs across its numbers', () => {
  let cluster: RedisClusterUnderTest;
  let client: Cluster;
  const prefix = freshPrefix('cluster-optouts');

  beforeAll(async () => {
    cluster = await RedisClusterUnderTest.start({ masters: 3 });
    client = cluster.client();
  }, 60_000);

  afterAll(async () => {
    await client?.quit();
    await cluster?.stop();
  });

  /** Three numbers: A and B on the two masters that do not hold the portfolio's record, C on any. */
  async function numbersApart(): Promise<string[]> {
    const record = await cluster.masterOf(`${portfolioScope(prefix, 'default')}:optouts`);
    const taken = new Set([record]);
    const found: string[] = [];
    for (let i = 0; found.length < 3 && i < 1000; i++) {
      const number = String(106540352242922 + i);
      const master = await cluster.masterOf(numberScope(prefix, number));
      if (found.length === 2 || !taken.has(master)) {
        taken.add(master);
        found.push(number);
      }
    }
    return found;
  }

  async function marketingRowOn(ledger: RedisLedger, number: string): Promise<void> {
    const definition: CampaignDefinition = { ...ledgerTestDefinition(`m${number}`), phoneNumberId: number, category: 'MARKETING' };
    await ledger.createCampaign(definition);
    await ledger.recordIngested(definition.id, number, [queuedRow(1)]);
    await ledger.finishIngest(definition.id);
    await feedAll(ledger, number);
  }

  it('a stop on A holds at the claim on B; a newer resume on B lifts it on A; C registered later takes the record', async () => {
    const [A, B, C] = await numbersApart();
    if (A === undefined || B === undefined || C === undefined) throw new Error('the cluster gave fewer than three numbers');
    expect(await cluster.masterOf(numberScope(prefix, A))).not.toBe(await cluster.masterOf(numberScope(prefix, B)));
    const ledger = new RedisLedger(client, prefix);
    const waId = phoneNumber(1).slice(1);
    await marketingRowOn(ledger, A);
    await marketingRowOn(ledger, B);

    await ledger.applyPreferences([{ phoneNumberId: A, waId, value: 'stop', at: 1000 }]);
    expect(await ledger.claim({ campaignId: `m${B}`, row: 1 }, B)).toMatchObject({ outcome: 'settled', status: 'skipped' });

    await marketingRowOn(ledger, C);
    expect(await ledger.claim({ campaignId: `m${C}`, row: 1 }, C)).toMatchObject({ outcome: 'settled', status: 'skipped' });

    await ledger.applyPreferences([{ phoneNumberId: B, waId, value: 'resume', at: 2000 }]);
    expect(await ledger.claim({ campaignId: `m${A}`, row: 1 }, A)).toMatchObject({ outcome: 'claimed' });
    expect(await ledger.optOutsOfPortfolio('default')).toStrictEqual(new Map());
  });
});
