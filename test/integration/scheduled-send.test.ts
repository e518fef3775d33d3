import { describe, expect, it } from 'vitest';
import { writeCampaignCsv } from '../support/csv-files.js';
import { pipelinePerTest } from '../support/pipeline.js';
import { TestClock } from '../support/test-clock.js';

const HOUR = 3_600_000;

/**
 * A campaign with a start an hour ahead, through the whole pipeline (ledger, feeder, BullMQ
 * worker, sandbox): checked and stored at once, `scheduled` and silent until its start, then
 * sent; and one that expires while its rows wait. The ledger's clock runs, and the test moves
 * it an hour on instead of waiting.
 */
describe('scheduled campaigns through the pipeline', () => {
  const rig = pipelinePerTest();

  it('--at an hour ahead: nothing reaches the API before the start, then every row once', async () => {
    const clock = TestClock.running();
    const pipeline = await rig.start({ label: 'scheduled', clock });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 20);
    const startsAt = clock.now() + HOUR;
    const summary = await pipeline.produce(file, { ...pipeline.definition('c-at'), startsAt });
    expect(summary.queued).toBe(20);
    const done = pipeline.completed('c-at');
    // Counts the feeder's feeds: it feeds every 250 ms, and must have fed nothing a few times before the start comes.
    let feeds = 0;
    const feed = pipeline.ledger.feed.bind(pipeline.ledger);
    pipeline.ledger.feed = (...args) => {
      feeds++;
      return feed(...args);
    };
    pipeline.startWorker();
    expect((await pipeline.ledger.status('c-at'))?.state).toBe('scheduled');
    await expect.poll(() => feeds, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(await pipeline.ledger.windowSize(pipeline.definition('c-at').phoneNumberId)).toBe(0);
    expect(pipeline.sandbox.accepted()).toHaveLength(0);
    const movedAt = Date.now();
    clock.advance(HOUR);
    await done;
    const accepted = pipeline.sandbox.accepted();
    expect(accepted).toHaveLength(20);
    expect(Math.min(...accepted.map((m) => m.receivedAt))).toBeGreaterThanOrEqual(movedAt);
    expect((await pipeline.ledger.status('c-at'))?.startedAt).toBeGreaterThanOrEqual(startsAt);
  });

  it('expiry while rows wait behind a slow number: the rest become expired and are never sent; the campaign completes', async () => {
    // 5 msg/s and a window of 5: most of 40 rows are still in the backlog when it expires.
    const clock = TestClock.running();
    const pipeline = await rig.start({ label: 'expiry', rate: 5, feedWindow: 5, clock });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 40);
    await pipeline.produce(file, { ...pipeline.definition('c-sale'), expiresAt: clock.now() + HOUR });
    const done = pipeline.completed('c-sale');
    pipeline.startWorker();
    await expect.poll(() => pipeline.sandbox.accepted().length, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
    clock.advance(HOUR);
    await done;
    const status = await pipeline.ledger.status('c-sale');
    expect(status?.state).toBe('completed');
    const counts = status?.counts;
    expect(counts?.sent).toBeGreaterThanOrEqual(3);
    expect(counts?.expired).toBeGreaterThan(0);
    expect((counts?.sent ?? 0) + (counts?.expired ?? 0)).toBe(40);
    expect(pipeline.sandbox.accepted()).toHaveLength(counts?.sent ?? -1);
    const report = await pipeline.report('c-sale');
    expect(report.filter((r) => r.status === 'expired')).toHaveLength(counts?.expired ?? -1);
  });
});
