import { describe, expect, it } from 'vitest';
import type { InboundUpdate } from '../../src/campaigns/ledger.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import type { StoredRow } from '../../src/redis/ledger/stored-row.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER as NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { ledgersPerTest, type TestLedger } from '../support/test-ledger.js';
import { storedRowOf } from '../support/stored-rows.js';

/**
 * Replies on their rows (src/redis/lua/apply-inbound.lua) on a real Redis: a quick-reply tap
 * (`q`, `qt`) and a Flow's answer (`j`, `jt`) each land on the row whose message they answer,
 * the earliest of each kind winning whatever order the webhooks come in, and the campaign's
 * `replied` counts a row once, whichever kinds of reply it has.
 */
const ID = 'replies';
const open = ledgersPerTest('ledger-replies');

async function sentCampaign(t: TestLedger, rows: number): Promise<void> {
  await ingestQueuedCampaign(t.ledger, ID, rows);
  const jobs: SendJob[] = (await feedAll(t.ledger)).jobs;
  for (const job of jobs) {
    await t.ledger.claim(job, NUMBER);
    await t.ledger.settle(job, { status: 'sent', wamid: `wamid.replies.${job.row}` }, NUMBER);
  }
}

/** A message from the recipient of `row`, replying to its message. */
function answer(row: number, at: number, content: Pick<InboundUpdate, 'reply' | 'flowResponse'>): InboundUpdate {
  return {
    phoneNumberId: NUMBER,
    waId: phoneNumber(row).slice(1),
    wamid: `wamid.in.${row}.${at}`,
    at,
    replyTo: `wamid.replies.${row}`,
    ...content,
    optOut: false,
  };
}

async function stored(t: TestLedger, row: number): Promise<StoredRow> {
  return (await storedRowOf(t.redis, campaignLedgerKeys(t.prefix, NUMBER, ID).rows, row)) ?? ({} as StoredRow);
}

describe('replies on their rows (real Redis)', () => {
  it("keeps a tap and a Flow's answer on the row they answer, the earliest of each, and counts each row once", async () => {
    const t = open();
    await sentCampaign(t, 4);
    const first = '{"flow_token":"unused","size":"M"}';
    const outcomes = await t.ledger.applyInbound([
      answer(1, 2000, { reply: 'YES' }),
      answer(2, 3000, { flowResponse: '{"flow_token":"unused","size":"L"}' }),
      // Meta's webhooks may come out of order: the earlier answer wins.
      answer(2, 2500, { flowResponse: first }),
      answer(3, 4000, { reply: 'MORE' }),
      answer(3, 5000, { flowResponse: '{"flow_token":"unused"}' }),
      // A message answering no message of ours changes no row.
      { ...answer(4, 6000, { flowResponse: '{}' }), replyTo: 'wamid.someone-else' },
    ]);
    expect(outcomes.map((o) => o.answeredRow)).toEqual([true, true, true, true, true, false]);
    expect(await stored(t, 1)).toMatchObject({ q: 'YES', qt: 2000 });
    expect(await stored(t, 2)).toMatchObject({ j: first, jt: 2500 });
    expect(await stored(t, 3)).toMatchObject({ q: 'MORE', qt: 4000, j: '{"flow_token":"unused"}', jt: 5000 });
    expect(await stored(t, 4)).not.toHaveProperty('jt');

    const rows = [];
    for await (const page of t.ledger.rows(ID)) rows.push(...page);
    expect(rows.map((r) => [r.reply, r.flowResponse])).toEqual([
      ['YES', undefined],
      [undefined, first],
      ['MORE', '{"flow_token":"unused"}'],
      [undefined, undefined],
    ]);
    // Rows 1, 2 and 3 replied; row 3's two replies and row 2's two answers are one row each.
    expect((await t.ledger.timeline(ID))?.counts.replied).toBe(3);
  });
});
