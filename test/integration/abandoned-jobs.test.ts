import { UnrecoverableError, Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { sendQueueName, sendQueuePrefix } from '../../src/queue/queue-names.js';
import { writeCampaignCsv } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, pipelinePerTest } from '../support/pipeline.js';
import { waitFor } from '../support/waiting.js';

/**
 * A job BullMQ failed while no send worker recorded it (the worker died between BullMQ's
 * decision and the ledger write) must not leave its row without an answer forever: the next
 * send worker to start records it.
 */
describe('failed jobs nobody recorded', () => {
  const rig = pipelinePerTest();

  it.each([
    ['a job a row', 1],
    ['a group of the three rows', 3],
  ])(
    '%s: a starting worker answers them: unknown if mid-send, failed if waiting; the campaign completes',
    async (_, groupSize) => {
      const pipeline = await rig.start({ label: 'abandoned' });
      const file = rig.csvPath();
      await writeCampaignCsv(file, 3);
      await pipeline.produce(file, pipeline.definition('c-abandoned'));
      // Fed as a worker's feeder would.
      const fed = await pipeline.ledger.feed(PHONE_NUMBER_ID, {
        windowSize: 10,
        minBatch: 1,
        refreshAfterMs: 60_000,
        refreshMost: 0,
        groupSize,
      });
      expect(fed.jobs).toHaveLength(3);
      const jobs = fed.groups ?? fed.jobs;
      expect(jobs).toHaveLength(groupSize === 1 ? 3 : 1);
      await pipeline.queue.enqueue(jobs);
      // Row 2 was claimed (its request may have left) before the job was lost.
      expect((await pipeline.ledger.claim({ campaignId: 'c-abandoned', row: 2 })).outcome).toBe('claimed');

      // A bare BullMQ worker fails every job and records nothing, like a worker that died right after.
      const connection = pipeline.redis.duplicate();
      const bare = new Worker(
        sendQueueName(PHONE_NUMBER_ID),
        () => {
          throw new UnrecoverableError('simulated: stalled more than allowable limit');
        },
        { connection, prefix: sendQueuePrefix(pipeline.prefix, PHONE_NUMBER_ID), autorun: false },
      );
      const failedAll = new Promise<void>((resolve) => {
        let failed = 0;
        bare.on('failed', () => {
          if (++failed === jobs.length) resolve();
        });
      });
      void bare.run();
      await failedAll;
      await bare.close();
      await connection.quit();
      expect((await pipeline.ledger.status('c-abandoned'))?.counts).toMatchObject({ queued: 2, sending: 1 });

      pipeline.startWorker();
      // The start-up check answers through the ledger, not through a send: poll for the state.
      await waitFor(() => pipeline.ledger.status('c-abandoned'), {
        what: 'c-abandoned completed',
        timeoutMs: 20_000,
        intervalMs: 100,
        until: (status) => status?.state === 'completed',
      });
      const rows = await pipeline.report('c-abandoned');
      expect(rows.map((r) => [r.row, r.status, r.errorCode])).toEqual([
        [1, 'failed', 'WORKER_GAVE_UP'],
        [2, 'unknown', 'WORKER_GAVE_UP'],
        [3, 'failed', 'WORKER_GAVE_UP'],
      ]);
      expect(pipeline.sandbox.accepted()).toHaveLength(0);
      // Answered rows leave the number's window: nothing is held for them.
      expect(await pipeline.ledger.windowSize(PHONE_NUMBER_ID)).toBe(0);
    },
    180_000,
  );
});
