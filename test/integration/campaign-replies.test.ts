import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { retargetCampaign } from '../../src/app/retarget-campaign.js';
import { writeReport } from '../../src/campaigns/report/report.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { PORTFOLIO_NUMBERS, PortfolioPipeline } from '../support/portfolio-pipeline.js';
import { waitFor } from '../support/waiting.js';

/**
 * Replies that belong to a campaign, through the real pipeline (the sandbox posting Meta's
 * signed webhooks, `campaign serve`'s intake and consumer, the ledger's apply-inbound.lua, a
 * fresh prefix): a quick-reply tap lands on its row as `reply_payload`, a WhatsApp Flow's
 * answer (`nfm_reply`) as `flow_response`, each found by the template message it answers
 * (`context.id`). Both count as replies: the funnel's `replied`, and `retarget --status
 * not-replied` leaves both rows out.
 */
const [NUMBER] = PORTFOLIO_NUMBERS;
const ANA = '+4915110000001';
const BRUNO = '+4915110000002';
const CARLA = '+4915110000003';
const DANA = '+4915110000004';
/** What Bruno's Flow sent back: its flow_token and fields, one of them formula-like. */
const BRUNO_FLOW = '{"flow_token": "unused", "size": "M", "note": "=HYPERLINK(\\"http://evil\\",\\"x\\")"}';
/** A response_json Meta sent that is no JSON object, as the webhook side keeps it (src/webhooks/flow-response.ts). */
const DANA_FLOW = '=HYPERLINK("http://evil","x")';

describe("replies to a campaign's messages", () => {
  let pipeline: PortfolioPipeline;

  beforeEach(async () => {
    pipeline = await PortfolioPipeline.start({ name: 'campaign-replies' });
  });

  afterEach(async () => {
    await pipeline.close();
  });

  /** A user's reply through the sandbox, as Meta would post it. */
  async function userReplies(body: Record<string, unknown>): Promise<void> {
    const answer = await fetch(`${pipeline.sandbox.url}/_sandbox/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phoneNumberId: NUMBER, ...body }),
    });
    expect(answer.status, await answer.clone().text()).toBe(200);
  }

  it('a tap sets reply_payload, a Flow’s answer flow_response (neutralised); neither row is not-replied', async () => {
    const id = await pipeline.send('replies', NUMBER, [ANA, BRUNO, CARLA, DANA], 'order_update');
    const wamidOf = async (phone: string) => (await pipeline.rows(id)).find((r) => r.phone === phone)?.wamid ?? '';

    await userReplies({ from: ANA, button: { payload: 'MORE_OFFERS', text: 'More offers' }, contextId: await wamidOf(ANA) });
    await userReplies({ from: BRUNO, flow: { responseJson: BRUNO_FLOW }, contextId: await wamidOf(BRUNO) });
    const rows = await waitFor(() => pipeline.rows(id), {
      what: 'the tap and the Flow answer on their rows',
      until: (r) => r[0]?.reply !== undefined && r[1]?.flowResponse !== undefined,
    });
    expect(rows.map((r) => [r.phone, r.reply, r.flowResponse])).toEqual([
      [ANA, 'MORE_OFFERS', undefined],
      [BRUNO, undefined, BRUNO_FLOW],
      [CARLA, undefined, undefined],
      [DANA, undefined, undefined],
    ]);
    // As the consumer hands the ledger an answer whose response_json was no JSON object.
    const [dana] = await pipeline.context.ledger.applyInbound([
      {
        phoneNumberId: NUMBER,
        waId: DANA.slice(1),
        wamid: 'wamid.in-dana',
        at: Date.now(),
        replyTo: await wamidOf(DANA),
        flowResponse: DANA_FLOW,
        optOut: false,
      },
    ]);
    expect(dana).toEqual({ answeredRow: true });
    expect((await pipeline.context.ledger.timeline(id))?.counts.replied).toBe(3);

    const path = pipeline.file('replies.csv');
    await writeReport(pipeline.context.ledger, id, path);
    const csv = await readFile(path, 'utf8');
    expect(csv.slice(0, csv.indexOf('\n')).split(',').slice(9, 13)).toEqual([
      'read_at',
      'reply_payload',
      'flow_response',
      'pricing_category',
    ]);
    const records = parse<Record<string, string>>(csv, { columns: true });
    const cells = (phone: string, column: string) => records.find((record) => record.phone === phone)?.[column];
    expect(cells(ANA, 'reply_payload')).toBe('MORE_OFFERS');
    expect(cells(ANA, 'flow_response')).toBe('');
    // A formula inside the JSON is text: the cell starts with `{`, and it parses back to what the user sent.
    expect(cells(BRUNO, 'flow_response')).toBe(BRUNO_FLOW);
    expect(JSON.parse(cells(BRUNO, 'flow_response') ?? '')).toMatchObject({ note: '=HYPERLINK("http://evil","x")' });
    // A cell that would start a formula gets the leading ', as every cell of the report does.
    expect(cells(DANA, 'flow_response')).toBe(`'${DANA_FLOW}`);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`);

    const notReplied = await retargetCampaign(pipeline.context, {
      campaignId: id,
      rule: { status: 'not-replied' },
      message: { text: 'Hi {{first_name}}' },
      names: CLI_FIELD_NAMES,
    });
    expect((await pipeline.rows(notReplied.id)).map((r) => r.phone)).toEqual([CARLA]);
  }, 60_000);
});
