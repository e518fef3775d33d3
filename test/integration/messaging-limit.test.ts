import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultHarness } from '../support/fault-harness.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';

/**
 * Meta's messaging limit (unique users per moving 24 h). The sandbox's
 * number reports TIER_50; a worker reads it from the API, the dry run says a 60-row campaign
 * goes past it, and the feeder holds the 10 rows past it back instead of sending them. A
 * limit given in MESSAGING_LIMITS wins over the API's, and the held rows then go out.
 */
const ROWS = 60;
const TIER = 50;

interface Plan {
  plan: {
    messagingLimit: {
      portfolio: string;
      limit: number | string | null;
      reached: number;
      queuedElsewhere: number;
      recipients: number;
      over: number;
      freesAt: string | null;
    } | null;
  };
  byReason: Record<string, number>;
}

describe('the messaging limit', () => {
  let rig: FaultHarness;

  beforeAll(async () => {
    rig = await FaultHarness.start({ label: 'msglimit', rows: ROWS, sendRate: 100, sandboxMps: 0, messagingLimitTier: 'TIER_50' });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
  });

  const dryRun = async (): Promise<Plan> =>
    JSON.parse(
      (
        await rig.cli([
          'send',
          rig.csvFile,
          '--template',
          'order_update',
          '--language',
          'en_US',
          '--params',
          'first_name,order_id',
          '--templates',
          SAMPLE_TEMPLATES,
          '--dry-run',
          '--json',
        ])
      ).stdout,
    ) as Plan;

  it(
    'the dry run says when it is not known, then how far a campaign goes past it; the worker ' +
      'holds those rows back until the limit allows them',
    async () => {
      expect((await dryRun()).plan.messagingLimit).toMatchObject({ limit: null, over: 0 });

      const worker = await rig.startWorker({}, ['--phone-number-id', PHONE_NUMBER_ID]);
      await worker.waitFor(/"messagingLimit":50[^\n]*messaging limit of the number.s portfolio/);
      expect((await dryRun()).plan.messagingLimit).toEqual({
        portfolio: 'default',
        limit: TIER,
        reached: 0,
        queuedElsewhere: 0,
        recipients: ROWS,
        over: ROWS - TIER,
        freesAt: expect.any(String) as string,
      });

      const { id } = await rig.send();
      await worker.waitFor(/messaging limit reached: 50 unique users in the last 24 h \(limit 50, portfolio default\)/);
      await rig.waitForAccepted(TIER, 30_000);
      await rig.pollUntil('50 rows sent', 30_000, 200, async () => ((await rig.status(id)).sent === TIER ? true : undefined));
      // The rows past the limit are in the backlog, not lost and not sent.
      expect(await rig.status(id)).toMatchObject({ state: 'running', sent: TIER, queued: ROWS - TIER });
      expect(rig.accepted()).toHaveLength(TIER);
      // The same file again: the 50 sent are ALREADY_SENT (the dry run reads the duplicate guard), the 10 others past the limit.
      const again = await dryRun();
      expect(again.byReason).toMatchObject({ ALREADY_SENT: TIER });
      expect(again.plan.messagingLimit).toMatchObject({ limit: TIER, reached: TIER, recipients: ROWS - TIER, over: ROWS - TIER });

      // MESSAGING_LIMITS wins over the API's tier: at 60 the held rows go out, each once.
      expect(await worker.stop()).toBe(0);
      await rig.startWorker({ MESSAGING_LIMITS: `${PHONE_NUMBER_ID}:${ROWS}` });
      expect(await rig.waitForCompletion(id, 60_000)).toMatchObject({ state: 'completed', sent: ROWS });
      expect(rig.duplicatesSeen()).toBe(0);
    },
    120_000,
  );
});
