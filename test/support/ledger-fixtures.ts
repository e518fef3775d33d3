import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import type { CampaignLedger, FeedResult, IngestedRow } from '../../src/campaigns/ledger.js';
import { phoneNumber } from './csv-files.js';
import { testFingerprint } from './sent-guard.js';

/** A minimal campaign definition for ledger-level tests (no template text is needed there). */
export function ledgerTestDefinition(id: string): CampaignDefinition {
  return {
    id,
    createdAt: Date.now(),
    phoneNumberId: '106540352242922',
    plan: { name: 'order_update', language: 'en_US', parameterFormat: 'POSITIONAL', slots: [], bodyText: 'Hi' },
    source: { file: 'test.csv', phoneColumn: 'phone', fixWhitespace: false },
  };
}

/** A row to send, as the producer records it (no template values: the fixture's plan has none; a fingerprint of the product's shape). */
export function queuedRow(row: number, phone = phoneNumber(row)): IngestedRow {
  return { row, phone, status: 'queued', message: { values: [], headerLink: undefined, fingerprint: testFingerprint(`fp-${phone}`) } };
}

/** A campaign of `queued` rows 1..rows in the ledger, ingest finished. */
export async function ingestQueuedCampaign(ledger: CampaignLedger, id: string, rows: number): Promise<void> {
  await ledger.createCampaign(ledgerTestDefinition(id));
  await ledger.recordIngested(
    id,
    '106540352242922',
    Array.from({ length: rows }, (_, i) => queuedRow(i + 1)),
  );
  await ledger.finishIngest(id);
}

/** The phone number of ledgerTestDefinition's campaigns. */
export const LEDGER_TEST_NUMBER = '106540352242922';

/**
 * Feeds every row waiting in the number's backlogs (room for 1,000 jobs, no refresh), as the
 * worker's feeder does before any claim: in production a row is always fed before it is claimed.
 */
export async function feedAll(ledger: CampaignLedger, number = LEDGER_TEST_NUMBER, windowSize = 1000): Promise<FeedResult> {
  return ledger.feed(number, { windowSize, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
}

/** Feeds every waiting row of the number and records each as sent, with message ID w<row> (what status webhooks then name). */
export async function sendAllAsW(ledger: CampaignLedger, number = LEDGER_TEST_NUMBER): Promise<void> {
  for (const job of (await feedAll(ledger, number)).jobs) {
    await ledger.claim(job, number);
    await ledger.settle(job, { status: 'sent', wamid: `w${job.row}` }, number);
  }
}
