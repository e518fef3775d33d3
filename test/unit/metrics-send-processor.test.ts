import { describe, expect, it } from 'vitest';
import type { IngestedRow } from '../../src/campaigns/ledger.js';
import { MemoryLedger } from '../../src/campaigns/memory-ledger.js';
import { SendProcessor, type MessageSender } from '../../src/campaigns/send/send-processor.js';
import type { SendResult } from '../../src/cloud-api/cloud-api-client.js';
import { CloudApiError, CloudApiTransportError } from '../../src/cloud-api/cloud-api-errors.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { SendObserver } from '../../src/metrics/send-observer.js';
import { phoneNumber } from '../support/csv-files.js';
import { fakeClock } from '../support/ledger-contract.js';
import { UNIT_NUMBER, orderUpdateDefinition } from '../support/unit-campaigns.js';

/** The send path's metrics hook: one record per request to the Cloud API, with its result and latency. */

const ID = 'm1';

class ScriptedSender implements MessageSender {
  constructor(readonly answers: (SendResult | Error)[]) {}
  async send(): Promise<SendResult> {
    // A request that takes a little while, so its latency is measurable.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const answer = this.answers.shift() ?? new Error('no answer scripted');
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

class RecordingObserver implements SendObserver {
  readonly records: { phoneNumberId: string; result: string; seconds: number }[] = [];
  recordSend(phoneNumberId: string, result: string, seconds: number): void {
    this.records.push({ phoneNumberId, result, seconds });
  }
}

async function campaign(rows: number): Promise<{ ledger: MemoryLedger; jobs: { campaignId: string; row: number }[] }> {
  const ledger = new MemoryLedger({ now: fakeClock().now });
  await ledger.createCampaign(orderUpdateDefinition(ID));
  const ingested: IngestedRow[] = Array.from({ length: rows }, (_, i) => ({
    row: i + 1,
    phone: phoneNumber(i + 1),
    status: 'queued',
    message: { values: [`Name${i + 1}`, `A-${i + 1}`], headerLink: undefined, fingerprint: `fp-${i + 1}` },
  }));
  await ledger.recordIngested(ID, UNIT_NUMBER, ingested);
  await ledger.finishIngest(ID);
  const fed = await ledger.feed(UNIT_NUMBER, { windowSize: 100, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
  return { ledger, jobs: fed.jobs };
}

describe('SendProcessor metrics hook', () => {
  it('records accepted, Meta\'s code and the transport failure, each with the request\'s latency; nothing for a row that is not sent', async () => {
    const { ledger, jobs } = await campaign(4);
    const sender = new ScriptedSender([
      { wamid: 'wamid.1', waId: '1', input: '+1', messageStatus: 'accepted' },
      new CloudApiError({ httpStatus: 400, metaCode: 131026, details: 'undeliverable' }),
      new CloudApiTransportError('connect', new Error('refused')),
    ]);
    const metrics = new RecordingObserver();
    const processor = new SendProcessor({ ledger, sender, logger: silentLogger(), metrics });
    const context = { isLastAttempt: true, pairDelays: 0 };
    for (const job of jobs.slice(0, 3)) await processor.process(job, context);
    // The same row again: already answered at its claim, so no request and no record.
    const first = jobs[0];
    if (first === undefined) throw new Error('nothing fed');
    await processor.process(first, context);

    expect(metrics.records.map((r) => [r.phoneNumberId, r.result])).toEqual([
      [UNIT_NUMBER, 'accepted'],
      [UNIT_NUMBER, '131026'],
      [UNIT_NUMBER, 'TRANSPORT_CONNECT'],
    ]);
    for (const r of metrics.records) {
      expect(r.seconds).toBeGreaterThanOrEqual(0.015);
      expect(r.seconds).toBeLessThan(5);
    }
  });

  it('without a metrics dependency, sends as before', async () => {
    const { ledger, jobs } = await campaign(1);
    const processor = new SendProcessor({ ledger, sender: new ScriptedSender([{ wamid: 'wamid.9', waId: '1', input: '+1', messageStatus: 'accepted' }]), logger: silentLogger() });
    const first = jobs[0];
    if (first === undefined) throw new Error('nothing fed');
    expect(await processor.process(first, { isLastAttempt: true, pairDelays: 0 })).toEqual({ kind: 'done', status: 'sent' });
  });
});
