import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import type { AcceptedMessage } from '../../src/sandbox/accepted-log.js';
import { phoneNumber } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, type Pipeline, pipelinePerTest } from '../support/pipeline.js';

/**
 * Campaigns sharing a phone number, through the whole pipeline: the feeder shares the
 * number's window round-robin between campaigns of one priority, so a short campaign sent
 * during a long one finishes in its own time; a high-priority one goes first; and BullMQ never
 * holds more than the window.
 */
describe('campaigns sharing a number (feeder)', () => {
  const rig = pipelinePerTest();
  const WINDOW = 100;
  const CONCURRENCY = 50;

  async function produce(p: Pipeline, id: string, rows: number, priority?: 'high' | 'normal' | 'low'): Promise<void> {
    const file = rig.csvPath(`${id}.csv`);
    // Other recipients per campaign, so no row repeats another campaign's message.
    const offset = id === 'big' ? 0 : 100_000;
    const lines = ['phone,first_name,order_id', ...Array.from({ length: rows }, (_, i) => `${phoneNumber(offset + i + 1)},Name${i + 1},A-${i + 1}`)];
    await writeFile(file, lines.join('\n') + '\n');
    const definition = p.definition(id);
    if (priority !== undefined) definition.priority = priority;
    expect((await p.produce(file, definition)).queued).toBe(rows);
  }

  /** The campaign a sent message came from: its biz_opaque_callback_data is `<campaign>/<row>`. */
  const campaignOf = (m: AcceptedMessage): string => {
    const data = (m.body as { biz_opaque_callback_data?: unknown }).biz_opaque_callback_data;
    return typeof data === 'string' ? (data.split('/')[0] ?? '') : '';
  };

  function acceptedFor(p: Pipeline, id: string): number {
    return p.sandbox.accepted().filter((m) => campaignOf(m) === id).length;
  }

  it('a 100-row campaign finishes while a 20,000-row campaign on the same number is still sending', async () => {
    const p = await rig.start({ label: 'fair', rate: 400, concurrency: CONCURRENCY, feedWindow: WINDOW });
    await produce(p, 'big', 20_000);
    p.startWorker();
    await new Promise<void>((resolve) => {
      const off = p.sandbox.onAccepted(() => {
        if (acceptedFor(p, 'big') >= 200) {
          off();
          resolve();
        }
      });
    });
    const smallDone = p.completed('small');
    await produce(p, 'small', 100);
    await smallDone;

    const small = await p.ledger.status('small');
    expect(small?.counts).toMatchObject({ total: 100, sent: 100 });
    const big = await p.ledger.status('big');
    // Still sending: most of its rows wait in its backlog, not behind it in the queue.
    expect(big?.state).toBe('running');
    expect(big?.counts.queued ?? 0).toBeGreaterThan(15_000);
    expect(acceptedFor(p, 'small')).toBe(100);
  }, 180_000);

  it('--priority high: a campaign sent later goes before the normal one’s backlog; the window bounds what BullMQ holds', async () => {
    const p = await rig.start({ label: 'priority', rate: 400, concurrency: CONCURRENCY, feedWindow: WINDOW });
    await produce(p, 'big', 5000);
    p.startWorker();
    const windowSamples: number[] = [];
    const jobSamples: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        windowSamples.push(await p.ledger.windowSize(PHONE_NUMBER_ID));
        const counts = await p.queue.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
        jobSamples.push(Object.values(counts).reduce((a, b) => a + b, 0));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    await new Promise<void>((resolve) => {
      const off = p.sandbox.onAccepted(() => {
        if (acceptedFor(p, 'big') >= 200) {
          off();
          resolve();
        }
      });
    });
    const urgentDone = p.completed('urgent');
    await produce(p, 'urgent', 300, 'high');
    await urgentDone;
    sampling = false;
    await sampler;

    const accepted = p.sandbox.accepted();
    const first = accepted.findIndex((m) => campaignOf(m) === 'urgent');
    const last = accepted.findLastIndex((m) => campaignOf(m) === 'urgent');
    const bigBetween = accepted.slice(first, last + 1).filter((m) => campaignOf(m) === 'big').length;
    // Only the big campaign's jobs already fed (the window) or in flight went out meanwhile:
    // none of its backlog was fed while urgent rows waited.
    expect(bigBetween).toBeLessThanOrEqual(WINDOW + CONCURRENCY);
    expect((await p.ledger.status('big'))?.state).toBe('running');
    expect(windowSamples.length).toBeGreaterThan(5);
    expect(Math.max(...windowSamples)).toBeLessThanOrEqual(WINDOW);
    // BullMQ may still hold jobs the ledger has answered (completing) and jobs parked for retry: at most the workers' concurrency more.
    expect(Math.max(...jobSamples)).toBeLessThanOrEqual(WINDOW + CONCURRENCY);
  }, 180_000);
});
