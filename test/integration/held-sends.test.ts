import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/campaigns/report/report.js';
import { writeCampaignCsv } from '../support/csv-files.js';
import { pipelinePerTest, type Pipeline } from '../support/pipeline.js';
import { waitFor } from '../support/waiting.js';
import { WebhookService } from '../support/webhook-service.js';

/**
 * Held sends through the real pipeline: the sandbox holds a share of template sends for
 * quality assessment (the `held` fault) and later posts their signed status webhooks; the
 * webhook service and its consumer (as `campaign serve` runs them) settle the `held` rows.
 * The campaign is not completed while any row is held.
 */
const SECRET = 'held-sends-app-secret-0123';
const RELEASE_MS = 3000;

describe('held sends settle by webhook (real Redis, worker, webhook service, sandbox)', () => {
  const frame = pipelinePerTest();
  let service: WebhookService;

  beforeEach(() => {
    service = new WebhookService(SECRET);
  });

  afterEach(async () => {
    await service.close();
  });

  async function reportRows(p: Pipeline, id: string): Promise<Record<string, string>[]> {
    const path = frame.csvPath(`${id}.report.csv`);
    await writeReport(p.ledger, id, path);
    return parse<Record<string, string>>(await readFile(path, 'utf8'), { columns: true });
  }

  it('held rows keep the campaign open until their webhooks come: one released (sent), one dropped (failed 132015)', async () => {
    const relay = await service.relay();
    const p = await frame.start({
      label: 'held',
      concurrency: 4,
      sandbox: {
        webhooks: { url: relay, appSecret: SECRET, sentAfterMs: 5, deliveredAfterMs: 20, readAfterMs: 40, readShare: 0, batchMs: 10 },
        // Every second template send is held; every second held one is dropped.
        faults: { held: { share: 0.5, releaseAfterMs: RELEASE_MS, dropShare: 0.5 } },
      },
    });
    await service.start(p.prefix, p.ledger);
    const file = frame.csvPath();
    await writeCampaignCsv(file, 4);
    expect(await p.produce(file, p.definition('c-held'))).toMatchObject({ queued: 4 });
    p.startWorker();

    // Every row answered: two sent (their webhooks came), two held. Not completed.
    const answered = await waitFor(async () => (await p.ledger.status('c-held'))?.counts, {
      what: 'two rows sent and delivered, two held',
      until: (c) => c !== undefined && c.held === 2 && c.sent === 2 && c.delivered === 2,
      timeoutMs: RELEASE_MS - 500,
      intervalMs: 20,
    });
    expect(answered).toMatchObject({ queued: 0, sending: 0, failed: 0, unknown: 0 });
    const waiting = await p.ledger.status('c-held');
    expect(waiting?.state).toBe('running');
    expect(waiting?.finishedAt).toBeUndefined();
    const heldAccepted = p.sandbox.accepted().filter((m) => m.heldForMs !== undefined);
    expect(heldAccepted).toHaveLength(2);
    const report = await reportRows(p, 'c-held');
    expect(report.map((r) => r.status).sort()).toEqual(['held', 'held', 'sent', 'sent']);
    const heldWamids = report.filter((r) => r.status === 'held').map((r) => r.message_id);
    expect(heldWamids.sort()).toEqual(heldAccepted.map((m) => m.wamid).sort());

    // Their webhooks settle them: the campaign completes. The released row's `delivered` comes
    // in a later webhook than its `sent` (which completes the campaign): wait for both.
    const done = await waitFor(async () => p.ledger.status('c-held'), {
      what: 'campaign c-held completed once its held rows settled, and the released row delivered',
      until: (s) => s?.state === 'completed' && s.counts.delivered === 3,
      timeoutMs: RELEASE_MS + 5000,
    });
    expect(done?.counts).toMatchObject({ held: 0, sent: 3, failed: 1, unknown: 0, delivered: 3 });
    expect(done?.pausedReason).toBeUndefined();
    const dropped = heldAccepted.find((m) => m.failure !== undefined);
    const rows = await p.report('c-held');
    const failed = rows.filter((r) => r.status === 'failed');
    expect(failed.map((r) => [r.wamid, r.errorCode])).toEqual([[dropped?.wamid, '132015']]);
    expect(failed[0]?.errorDetail).toMatch(/held for quality assessment and dropped/);
    const released = heldAccepted.find((m) => m.failure === undefined);
    expect(rows.find((r) => r.wamid === released?.wamid)).toMatchObject({ status: 'sent' });
    expect(rows.find((r) => r.wamid === released?.wamid)?.deliveredAt).toBeGreaterThan(0);
  });

  it('failures Meta reports only by webhook feed the error-spike brake: the campaign pauses (ERROR_SPIKE) while it sends', async () => {
    const relay = await service.relay();
    const p = await frame.start({
      label: 'held-brake',
      rate: 20,
      concurrency: 2,
      autoPause: { window: 10, failureShare: 0.3 },
      sandbox: {
        webhooks: { url: relay, appSecret: SECRET, sentAfterMs: 5, deliveredAfterMs: 20, readAfterMs: 40, readShare: 0, batchMs: 10 },
        // Every send is accepted (200 + wamid) and reported failed 131026 by webhook.
        faults: { failureShare: { rate: 1, codes: [131026] } },
      },
    });
    await service.start(p.prefix, p.ledger);
    const file = frame.csvPath();
    await writeCampaignCsv(file, 60);
    await p.produce(file, p.definition('c-brake'));
    p.startWorker();
    const paused = await waitFor(async () => p.ledger.status('c-brake'), {
      what: 'campaign c-brake paused by the brake',
      until: (s) => s?.state === 'paused',
    });
    expect(paused?.pausedReason).toMatch(/^ERROR_SPIKE: \d+ of the last 10 sends failed permanently \(latest 131026: /);
    // Every answer was a 200: only the webhooks' failures can have tripped it.
    expect(paused?.counts.failed).toBeGreaterThan(0);
    expect(paused?.counts.queued).toBeGreaterThan(0);
    expect(p.sandbox.stats().rejectedByCode).toEqual({});
  });
});
