import { describe, expect, it } from 'vitest';
import type { RowStatus } from '../../src/campaigns/campaign.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { SendProcessor, type MessageSender, type SendProcessorLedger } from '../../src/campaigns/send/send-processor.js';
import type { SendResult } from '../../src/cloud-api/cloud-api-client.js';
import { CloudApiError, CloudApiTransportError } from '../../src/cloud-api/cloud-api-errors.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { SendObserver } from '../../src/metrics/send-observer.js';
import { phoneNumber } from '../support/csv-files.js';
import { UNIT_NUMBER, orderUpdateDefinition } from '../support/unit-campaigns.js';

/** The send path's metrics hook: one record per request to the Cloud API, with its result and latency. */

const ID = 'm1';

class ScriptedSender implements MessageSender {
  constructor(readonly answers: (SendResult | Error)[]) {}
  async send(): Promise<SendResult> {
    // A request that takes a little while, so its latency is measurable: the delay is what is tested, not a wait.
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

/**
 * The ledger's part of a send, kept in a map: a row is claimed until it has its final answer,
 * then every claim says it is settled (as the ledger's claim does for an answered row).
 */
function stubLedger(): SendProcessorLedger {
  const answered = new Map<number, RowStatus>();
  const FINAL: Partial<Record<string, RowStatus>> = { sent: 'sent', failed: 'failed', unknown: 'unknown', abandoned: 'unknown' };
  return {
    getCampaign: () => Promise.resolve(orderUpdateDefinition(ID)),
    isHeld: () => Promise.resolve(false),
    claim: (job) => {
      const status = answered.get(job.row);
      if (status !== undefined) return Promise.resolve({ outcome: 'settled', status });
      return Promise.resolve({
        outcome: 'claimed',
        attempt: 1,
        row: { to: phoneNumber(job.row), values: [`Name${job.row}`, `A-${job.row}`], headerLink: undefined },
      });
    },
    settle: (job, settlement) => {
      const status = FINAL[settlement.status] ?? 'queued';
      if (status !== 'queued') answered.set(job.row, status);
      return Promise.resolve({ status, completedCampaign: false, pausedCampaign: false });
    },
    halt: () => Promise.reject(new Error('no halting code in these tests')),
    templateStatusOf: () => Promise.reject(new Error('no template code in these tests')),
    recordOptOut: () => Promise.resolve(),
    recordMarketingCap: () => Promise.resolve(),
  };
}

const jobsOf = (rows: number): SendJob[] => Array.from({ length: rows }, (_, i) => ({ campaignId: ID, row: i + 1 }));

describe('SendProcessor metrics hook', () => {
  it("records accepted, Meta's code and the transport failure, each with the request's latency; nothing for a row not sent", async () => {
    const ledger = stubLedger();
    const jobs = jobsOf(4);
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
    const ledger = stubLedger();
    const jobs = jobsOf(1);
    const processor = new SendProcessor({
      ledger,
      sender: new ScriptedSender([{ wamid: 'wamid.9', waId: '1', input: '+1', messageStatus: 'accepted' }]),
      logger: silentLogger(),
    });
    const first = jobs[0];
    if (first === undefined) throw new Error('nothing fed');
    expect(await processor.process(first, { isLastAttempt: true, pairDelays: 0 })).toEqual({ kind: 'done', status: 'sent' });
  });
});
