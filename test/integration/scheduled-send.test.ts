import { describe, expect, it } from 'vitest';
import { writeCampaignCsv } from '../support/csv-files.js';
import { pipelinePerTest } from '../support/pipeline.js';

/**
 * A campaign with a start a few seconds ahead, through the whole pipeline (ledger, feeder,
 * BullMQ worker, sandbox): checked and stored at once, `scheduled` and silent until its
 * start, then sent; and one that expires while its rows wait.
 */
describe('scheduled campaigns through the pipeline', () => {
  const rig = pipelinePerTest();

  it('--at a few seconds ahead: nothing reaches the API before the start, then every row once', async () => {
    const pipeline = await rig.start({ label: 'scheduled' });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 20);
    const startsAt = Date.now() + 3000;
    const summary = await pipeline.produce(file, { ...pipeline.definition('c-at'), startsAt });
    expect(summary.queued).toBe(20);
    const done = pipeline.completed('c-at');
    pipeline.startWorker();
    expect((await pipeline.ledger.status('c-at'))?.state).toBe('scheduled');
    await done;
    const accepted = pipeline.sandbox.accepted();
    expect(accepted).toHaveLength(20);
    // Redis's clock and this process's are the same host's here; allow for the HTTP hop only.
    expect(Math.min(...accepted.map((m) => m.receivedAt))).toBeGreaterThanOrEqual(startsAt - 50);
    expect((await pipeline.ledger.status('c-at'))?.startedAt).toBeGreaterThanOrEqual(startsAt);
  });

  it('expiry while rows wait behind a slow number: the rest become expired and are never sent; the campaign completes', async () => {
    // 5 msg/s and a window of 5: most of 40 rows are still in the backlog when it expires.
    const pipeline = await rig.start({ label: 'expiry', rate: 5, feedWindow: 5 });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 40);
    await pipeline.produce(file, { ...pipeline.definition('c-sale'), expiresAt: Date.now() + 2000 });
    const done = pipeline.completed('c-sale');
    pipeline.startWorker();
    await done;
    const status = await pipeline.ledger.status('c-sale');
    expect(status?.state).toBe('completed');
    const counts = status?.counts;
    expect(counts?.expired).toBeGreaterThan(0);
    expect((counts?.sent ?? 0) + (counts?.expired ?? 0)).toBe(40);
    expect(pipeline.sandbox.accepted()).toHaveLength(counts?.sent ?? -1);
    const report = await pipeline.report('c-sale');
    expect(report.filter((r) => r.status === 'expired')).toHaveLength(counts?.expired ?? -1);
  });
});
