import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultHarness, within, type StatusJson } from '../support/fault-harness.js';
import { PHONE_NUMBER_ID } from '../support/pipeline.js';
import { campaignLedgerKeys, feedKeys } from '../../src/redis/ledger/ledger-keys.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';

/**
 * Fault injection: the access token expires mid-campaign (the API answers 190).
 * The campaign pauses with the reason in `campaign status`, no further send starts, and
 * after the worker is restarted with the new token `campaign resume` finishes it: every row
 * sent exactly once.
 */
const ROWS = 600;
const RATE = 100;
const EXPIRE_AFTER = 150;
const OLD_TOKEN = 'old-token';
const NEW_TOKEN = 'new-token';

describe('fault: access token expires mid-campaign (190)', () => {
  let rig: FaultHarness;

  beforeAll(async () => {
    rig = await FaultHarness.start({ label: 'fault-token', rows: ROWS, sendRate: RATE, sandboxMps: RATE, token: OLD_TOKEN });
  });

  afterAll(async () => {
    await rig.close();
  });

  /** Every /messages request that reached the sandbox: `requests` counts those past the token check, 190s come on top. */
  const requests = (): number => {
    const stats = rig.stats();
    return stats.requests + (stats.rejectedByCode['190'] ?? 0);
  };

  it('pauses with the reason, sends nothing more, and resume with the fixed token finishes every row once', async () => {
    const oldWorker = await rig.startWorker();
    const summary = await rig.send();
    expect(summary).toMatchObject({ rows: ROWS, queued: ROWS });

    await rig.waitForAccepted(EXPIRE_AFTER, 90_000);
    rig.sandbox.setAccessToken(NEW_TOKEN);
    const acceptedAtExpiry = rig.accepted().length;
    expect(acceptedAtExpiry).toBeLessThan(ROWS);

    // The sandbox refuses the old token (190); nothing announces that, so look in-process.
    await rig.pollUntil('no 190 answer from the sandbox', 10_000, 20, () =>
      (rig.stats().rejectedByCode['190'] ?? 0) > 0 ? true : undefined,
    );
    const paused = await rig.pollUntil<StatusJson>('campaign did not pause', 90_000, 500, async () => {
      const s = await rig.status(summary.id);
      return s.state === 'paused' ? s : undefined;
    });
    expect(paused.pausedReason ?? '', JSON.stringify(paused)).toContain('190');

    // The sends in flight at the pause get their answers; no row is claimed after it, so from
    // then on whatever reaches the sandbox would be a send the pause let through.
    const drained = await rig.pollUntil('sends in flight at the pause answered', 30_000, 50, () =>
      rig.inRedis(async (redis) => {
        const s = await new RedisLedger(redis, rig.prefix).status(summary.id);
        return s !== undefined && s.counts.sending === 0 ? s : undefined;
      }),
    );
    const requestsAtDrain = requests();

    // The jobs already fed park at their claim: every unsent row is back in the campaign's
    // backlog, and the number's window is empty, so the paused campaign takes no turns. The
    // workers have then handled every job they had, and sent nothing more.
    const backlog = await rig.pollUntil('the fed jobs did not park', 90_000, 200, () =>
      rig.inRedis(async (redis) => {
        // Read together (MULTI): a batch of jobs parking between two separate reads would move
        // its rows from the window to the backlog unseen.
        const replies = await redis
          .multi()
          .llen(campaignLedgerKeys(rig.prefix, PHONE_NUMBER_ID, summary.id).pending)
          .zcard(feedKeys(rig.prefix, PHONE_NUMBER_ID).window)
          .exec();
        const [waiting, fed] = (replies ?? []).map(([, value]) => Number(value));
        return fed === 0 ? waiting : undefined;
      }),
    );
    const context = () => JSON.stringify({ stats: rig.stats(), acceptedAtExpiry, drained: drained.counts });
    expect(requests(), context()).toBe(requestsAtDrain);
    expect(rig.accepted().length, context()).toBe(acceptedAtExpiry);
    const stillPaused = await rig.status(summary.id);
    expect(stillPaused.state).toBe('paused');
    expect(stillPaused.sent + stillPaused.queued, JSON.stringify(stillPaused)).toBe(ROWS); // no row failed for the token
    expect(stillPaused.failed + stillPaused.unknown, JSON.stringify(stillPaused)).toBe(0);
    expect(backlog, JSON.stringify(stillPaused)).toBe(stillPaused.queued);

    // The operator fixes the token: restart the worker with it (graceful stop within 10 s).
    const exit = await within(90_000, oldWorker.stop('SIGTERM'), () => rig.describeWorkers());
    expect(exit, oldWorker.output).toBe(0);
    await rig.startWorker({ WHATSAPP_ACCESS_TOKEN: NEW_TOKEN });
    // A new worker alone does not resume a paused campaign.
    expect(rig.accepted().length).toBe(acceptedAtExpiry);
    expect((await rig.status(summary.id)).state).toBe('paused');

    await rig.cli(['resume', summary.id]);
    const status = await rig.waitForCompletion(summary.id, 180_000);
    const stats = rig.stats();
    const report = await rig.report(summary.id);
    const notSent = report.filter((r) => r.status !== 'sent');
    const done = JSON.stringify({ status, stats, notSent: notSent.slice(0, 10) });
    rig.note('outcome', { status, stats, acceptedAtExpiry });

    expect(status, done).toMatchObject({ state: 'completed', total: ROWS, queued: 0, sent: ROWS, failed: 0, unknown: 0 });
    expect(status.pausedReason ?? null, done).toBeNull();
    expect(notSent, done).toEqual([]);
    expect(rig.accepted()).toHaveLength(ROWS);
    expect(stats.duplicates, done).toBe(0);
    expect(rig.duplicatesSeen()).toBe(0);
    expect(rig.crossCheck(report), done).toEqual([]);
    // The token never reaches any output.
    expect(rig.workers.map((w) => w.output).join('\n')).not.toMatch(/old-token|new-token/);
  }, 300_000);
});
