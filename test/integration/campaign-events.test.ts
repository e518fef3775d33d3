import { describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { eventFromEntry, type CampaignEvent } from '../../src/events/campaign-event.js';
import { markCampaignsForEvents } from '../../src/redis/events/campaign-event-flags.js';
import { eventStreamKey, hooksRegistryKey } from '../../src/redis/events/event-keys.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER as NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { ledgersPerTest, type TestLedger } from '../support/test-ledger.js';

/**
 * The ledger's outbound events (src/redis/lua/includes/events.lua) on a real Redis: each change
 * a hook may be told about is written to the number's event stream by the script that makes it,
 * in the order the changes are made, and only for a campaign that has the `events` flag.
 */
const open = ledgersPerTest('campaign-events');

async function events(t: TestLedger): Promise<CampaignEvent[]> {
  const entries = await t.redis.xrange(eventStreamKey(t.prefix, NUMBER), '-', '+');
  return entries.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) fields[flat[i] ?? ''] = flat[i + 1] ?? '';
    const event = eventFromEntry(NUMBER, id, fields);
    if (event === undefined) throw new Error(`unreadable event entry ${id}: ${JSON.stringify(fields)}`);
    return event;
  });
}

/** Events as `type row` lines (campaign events without a row), for comparing sequences. */
function lines(list: readonly CampaignEvent[]): string[] {
  return list.map((e) => (e.row === undefined ? `${e.type} ${e.campaign_id}` : `${e.type} ${e.row}`));
}

async function sendAll(t: TestLedger, failRow: number): Promise<void> {
  const jobs: SendJob[] = (await feedAll(t.ledger)).jobs;
  for (const job of jobs) {
    await t.ledger.claim(job, NUMBER);
    const answer =
      job.row === failRow
        ? ({ status: 'failed', errorCode: '131026', errorDetail: 'Message undeliverable' } as const)
        : ({ status: 'sent', wamid: `wamid.events.${job.row}` } as const);
    await t.ledger.settle(job, answer, NUMBER);
  }
}

describe('outbound events from the ledger (real Redis)', () => {
  it("writes a campaign's row and campaign events in the order its changes were made", async () => {
    const t = open();
    await t.redis.hset(hooksRegistryKey(t.prefix), 'crm', '{}');
    await ingestQueuedCampaign(t.ledger, 'with-events', 4);
    await sendAll(t, 3);
    await t.ledger.applyStatuses([
      { phoneNumberId: NUMBER, wamid: 'wamid.events.1', kind: 'read', at: 5000 },
      { phoneNumberId: NUMBER, wamid: 'wamid.events.1', kind: 'delivered', at: 4000 },
      { phoneNumberId: NUMBER, wamid: 'wamid.events.2', kind: 'failed', at: 6000, code: '131050', detail: 'User stopped marketing' },
    ]);
    await t.ledger.applyInbound([
      {
        phoneNumberId: NUMBER,
        waId: phoneNumber(4).slice(1),
        wamid: 'wamid.in.4',
        at: 7000,
        replyTo: 'wamid.events.4',
        reply: 'YES',
        optOut: false,
      },
    ]);
    const got = await events(t);
    expect(lines(got)).toEqual([
      'campaign.started with-events',
      'row.sent 1',
      'row.sent 2',
      'row.failed 3',
      'row.sent 4',
      'campaign.completed with-events',
      // A read is a delivery too: both, delivered first.
      'row.delivered 1',
      'row.read 1',
      'row.failed 2',
      'row.opted_out 2',
      'row.replied 4',
    ]);
    expect(got.find((e) => e.type === 'row.failed' && e.row === 3)).toMatchObject({
      phone: phoneNumber(3),
      error: { code: '131026', detail: 'Message undeliverable' },
    });
    expect(got.find((e) => e.type === 'row.read')).toMatchObject({ message_id: 'wamid.events.1', phone: phoneNumber(1) });
    expect(got.find((e) => e.type === 'row.replied')).toMatchObject({ reply: 'YES', row: 4 });
    expect(new Set(got.map((e) => e.id)).size).toBe(got.length);
  });

  it('says paused and cancelled once each, and a cancelled campaign is not also completed', async () => {
    const t = open();
    await t.redis.hset(hooksRegistryKey(t.prefix), 'crm', '{}');
    await ingestQueuedCampaign(t.ledger, 'controlled', 2);
    await t.ledger.pause('controlled', 'checking the offer');
    await t.ledger.pause('controlled', 'again');
    await t.ledger.cancel('controlled');
    await t.ledger.cancel('controlled');
    const got = await events(t);
    expect(lines(got)).toEqual(['campaign.paused controlled', 'campaign.cancelled controlled']);
    expect(got[0]?.reason).toBe('checking the offer');
  });

  it('writes nothing for a campaign without the flag, and everything once a hook marks it', async () => {
    const t = open();
    await ingestQueuedCampaign(t.ledger, 'quiet', 2);
    await t.ledger.pause('quiet', 'before any hook');
    expect(await events(t)).toEqual([]);
    await t.redis.hset(hooksRegistryKey(t.prefix), 'crm', '{}');
    expect(await markCampaignsForEvents(t.redis, t.prefix, true)).toBe(1);
    await t.ledger.resume('quiet');
    await sendAll(t, 0);
    expect(lines(await events(t))).toEqual(['campaign.started quiet', 'row.sent 1', 'row.sent 2', 'campaign.completed quiet']);
  });
});
