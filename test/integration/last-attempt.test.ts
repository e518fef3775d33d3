import { describe, expect, it } from 'vitest';
import { writeCampaignCsv } from '../support/csv-files.js';
import { pipelinePerTest } from '../support/pipeline.js';

/**
 * What the last attempt's failure leaves: a request that got no answer may have been
 * delivered, so its row is `unknown` (and a plain `campaign retry` leaves it alone); a
 * server error answer proves Meta refused it, so the row is `failed`.
 */
describe('the last attempt', () => {
  const rig = pipelinePerTest();

  it('timed out: the row is unknown with TRANSPORT_TIMEOUT, not failed', async () => {
    const pipeline = await rig.start({ label: 'last-timeout', attempts: 2, backoffMs: 10, timeoutMs: 200 });
    pipeline.sandbox.setFaults({ timeoutRate: 1 });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 3);
    const done = pipeline.completed('c-timeout');
    pipeline.startWorker();
    await pipeline.produce(file, pipeline.definition('c-timeout'));
    await done;

    const rows = await pipeline.report('c-timeout');
    expect(rows.map((r) => [r.status, r.errorCode, r.attempts])).toEqual([
      ['unknown', 'TRANSPORT_TIMEOUT', 2],
      ['unknown', 'TRANSPORT_TIMEOUT', 2],
      ['unknown', 'TRANSPORT_TIMEOUT', 2],
    ]);
    expect(pipeline.sandbox.stats().requests).toBe(6);
  }, 180_000);

  it('answered 500: the row is failed with Meta’s code', async () => {
    const pipeline = await rig.start({ label: 'last-500', attempts: 2, backoffMs: 10 });
    pipeline.sandbox.setFaults({ errorRate: 1, errorStatuses: [500] });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 3);
    const done = pipeline.completed('c-500');
    pipeline.startWorker();
    await pipeline.produce(file, pipeline.definition('c-500'));
    await done;

    const rows = await pipeline.report('c-500');
    expect(rows.map((r) => [r.status, r.errorCode, r.attempts])).toEqual([
      ['failed', '131000', 2],
      ['failed', '131000', 2],
      ['failed', '131000', 2],
    ]);
  }, 180_000);
});
