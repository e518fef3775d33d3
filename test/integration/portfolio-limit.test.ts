import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultHarness } from '../support/fault-harness.js';
import { phoneNumber } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';

/**
 * Meta's messaging limit belongs to the business portfolio (since 2025-10-07), shared by its
 * numbers. Two numbers, both in the default portfolio; the sandbox reports TIER_2K on each (Meta
 * answers the portfolio's limit on every number). Two campaigns of 1,500 new recipients, one
 * per number: exactly 2,000 distinct recipients get a message across both, and the other 1,000
 * rows wait in the backlogs. The dry run of the second counts the first's queued rows.
 */
const ROWS = 1500;
const TIER = 2000;
const A = PHONE_NUMBER_ID;
const B = '106540352242923';

interface Plan {
  plan: { messagingLimit: Record<string, unknown> | null };
}

describe('one messaging limit per business portfolio', () => {
  let rig: FaultHarness;
  let otherCsv: string;

  beforeAll(async () => {
    rig = await FaultHarness.start({
      label: 'portfolio-limit',
      rows: ROWS,
      sendRate: 0,
      sandboxMps: 0,
      phoneNumberIds: [A, B],
      messagingLimitTier: 'TIER_2K',
    });
    // The second campaign's recipients: 1,500 others.
    otherCsv = join(rig.dir, 'others.csv');
    const lines = ['phone,first_name,order_id'];
    for (let i = 1; i <= ROWS; i++) lines.push(`${phoneNumber(100_000 + i)},Other${i},B-${i}`);
    await writeFile(otherCsv, lines.join('\n') + '\n');
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
  });

  const sendArgs = (file: string, more: string[]) => [
    'send',
    file,
    '--template',
    'order_update',
    '--language',
    'en_US',
    '--params',
    'first_name,order_id',
    '--templates',
    SAMPLE_TEMPLATES,
    '--json',
    ...more,
  ];

  it('two numbers share one TIER_2K limit: never more than 2,000 new recipients across both in 24 h', async () => {
    const first = (await rig.send({ WHATSAPP_PHONE_NUMBER_ID: A })).id;
    // Before any worker ran: the second campaign's plan counts the first's 1,500 queued rows.
    const dry = JSON.parse(
      (await rig.cli(sendArgs(otherCsv, ['--dry-run']), { WHATSAPP_PHONE_NUMBER_ID: B, MESSAGING_LIMITS: `default:${TIER}` })).stdout,
    ) as Plan;
    expect(dry.plan.messagingLimit).toMatchObject({
      portfolio: 'default',
      limit: TIER,
      reached: 0,
      queuedElsewhere: ROWS,
      recipients: ROWS,
      over: 2 * ROWS - TIER,
    });
    const second = (JSON.parse((await rig.cli(sendArgs(otherCsv, []), { WHATSAPP_PHONE_NUMBER_ID: B })).stdout) as { id: string }).id;

    // One worker serving both numbers; it reads TIER_2K from the API on each number.
    const worker = await rig.startWorker({ WHATSAPP_PHONE_NUMBER_ID: '' });
    await rig.waitForAccepted(TIER, 60_000);
    // Whichever number's feed came second was held back at the limit, and says so.
    await rig.pollUntil('the limit logged', 30_000, 100, () =>
      /messaging limit reached: 2000 unique users in the last 24 h \(limit 2000, portfolio default\)/.test(worker.output)
        ? true
        : undefined,
    );
    await rig.pollUntil('2,000 rows sent', 30_000, 200, async () => {
      const sent = (await rig.status(first)).sent + (await rig.status(second)).sent;
      return sent === TIER ? true : undefined;
    });
    // A few more feeds of both numbers: nothing more goes out.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const accepted = rig.accepted();
    expect(accepted).toHaveLength(TIER);
    expect(new Set(accepted.map((m) => m.waId)).size).toBe(TIER);
    expect(new Set(accepted.map((m) => m.phoneNumberId))).toEqual(new Set([A, B]));
    const [a, b] = [await rig.status(first), await rig.status(second)];
    expect(a.sent + b.sent).toBe(TIER);
    expect(a.queued + b.queued).toBe(2 * ROWS - TIER);
    // The number fed first may have finished; the other's rows past the limit wait.
    expect([a.state, b.state]).toContain('running');

    // The plan now: the portfolio has reached 2,000; a third campaign's rows all wait.
    const again = JSON.parse(
      (await rig.cli(sendArgs(otherCsv, ['--dry-run', '--allow-repeat']), { WHATSAPP_PHONE_NUMBER_ID: A })).stdout,
    ) as Plan;
    expect(again.plan.messagingLimit).toMatchObject({ limit: TIER, reached: TIER, queuedElsewhere: 2 * ROWS - TIER });
  }, 180_000);
});
