import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numberScope } from '../../src/redis/key-scope.js';
import { FaultHarness, waIdOfRow } from '../support/fault-harness.js';
import { RedisClusterUnderTest } from '../support/redis-cluster.js';

/**
 * Campaigns on three phone numbers through a 3-master Redis Cluster the test starts
 * itself, each number's keys on a different master, served by two worker processes that each
 * serve every number, one of them SIGKILLed mid-campaign.
 * Every row of every campaign is sent exactly once (the killed worker's in-flight rows are
 * settled by their status webhooks, which `campaign serve` takes in through the cluster too).
 */
const ROWS = 400;
const RATE = 100;
/**
 * A killed worker's request that never reached the sandbox gets no status: it is sent again once
 * this window passes with later sends confirmed (the in-doubt rule), short here to keep the test short.
 */
const CONFIRM_SECONDS = 5;

describe('Redis Cluster: three numbers, three masters, a worker killed', () => {
  let cluster: RedisClusterUnderTest;
  let rig: FaultHarness;
  let numbers: string[];

  beforeAll(async () => {
    cluster = await RedisClusterUnderTest.start({ masters: 3 });
    numbers = await oneNumberPerMaster(cluster);
    rig = await FaultHarness.start({
      label: 'cluster',
      rows: ROWS,
      sendRate: RATE,
      sandboxMps: 0,
      cluster,
      phoneNumberIds: numbers,
      webhooks: true,
      workerEnv: { CONFIRM_WINDOW_SECONDS: String(CONFIRM_SECONDS) },
    });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    await cluster?.stop();
  });

  it('sends every row of every number once, though a worker was SIGKILLed mid-campaign', async () => {
    const campaigns = new Map<string, string>();
    for (const number of numbers) campaigns.set(number, (await rig.send({ WHATSAPP_PHONE_NUMBER_ID: number })).id);
    // Two worker processes, each serving every number that has campaigns.
    const victim = await rig.startWorker({ WHATSAPP_PHONE_NUMBER_ID: '' });
    await rig.startWorker({ WHATSAPP_PHONE_NUMBER_ID: '' });
    for (const number of numbers) expect(victim.output).toContain(`"phoneNumberId":"${number}"`);

    // Mid-campaign: a third of all rows accepted; then one worker dies, and a new one joins the other.
    await rig.waitForAccepted((numbers.length * ROWS) / 3, 60_000);
    expect(await victim.stop('SIGKILL')).toBeNull();
    expect(rig.accepted().length).toBeLessThan(numbers.length * ROWS);
    await rig.startWorker({ WHATSAPP_PHONE_NUMBER_ID: '' });

    for (const [number, id] of campaigns) {
      const status = await rig.waitForCompletion(id, 120_000);
      expect(status, `number ${number}`).toMatchObject({ state: 'completed', total: ROWS, sent: ROWS });
    }
    // `campaign serve` reads its /metrics from the cluster too: every campaign, every number's queue.
    const metrics = await (await fetch(`${rig.service?.url ?? ''}/metrics`)).text();
    for (const [number, id] of campaigns) {
      expect(metrics).toContain(`cw_campaign_rows{campaign_id="${id}",status="sent"} ${ROWS}`);
      expect(metrics).toMatch(new RegExp(`cw_queue_jobs\\{phone_number_id="${number}",state="waiting"\\} 0`));
    }
    // Exactly one message per row and number at the receiver.
    for (const number of numbers) {
      const seen = new Map<string, number>();
      for (const m of rig.accepted()) if (m.phoneNumberId === number) seen.set(m.waId, (seen.get(m.waId) ?? 0) + 1);
      expect(seen.size, `number ${number}`).toBe(ROWS);
      expect(
        [...seen.values()].filter((n) => n !== 1),
        `number ${number}: recipients messaged more than once`,
      ).toStrictEqual([]);
      expect(seen.has(waIdOfRow(ROWS))).toBe(true);
    }
  }, 240_000);
});

/** Three phone-number IDs whose keys ({number} hash tags) live on three different masters. */
async function oneNumberPerMaster(cluster: RedisClusterUnderTest): Promise<string[]> {
  const masters = await cluster.masterPorts();
  const byMaster = new Map<number, string>();
  for (let i = 0; byMaster.size < masters.length && i < 1000; i++) {
    const number = String(106540352242922 + i);
    const master = await cluster.masterOf(numberScope('any', number));
    if (!byMaster.has(master)) byMaster.set(master, number);
  }
  expect(byMaster.size).toBe(3);
  return [...byMaster.values()];
}
