import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import type { CampaignLedger, IngestedRow } from '../../src/campaigns/ledger.js';
import { phoneNumber } from './csv-files.js';

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

/** A row to send, as the producer records it (no template values: the fixture's plan has none). */
export function queuedRow(row: number, phone = phoneNumber(row)): IngestedRow {
  return { row, phone, status: 'queued', message: { values: [], headerLink: undefined, fingerprint: `fp-${phone}` } };
}

/** A campaign of `queued` rows 1..rows in the ledger, ingest finished. */
export async function ingestQueuedCampaign(ledger: CampaignLedger, id: string, rows: number): Promise<void> {
  await ledger.createCampaign(ledgerTestDefinition(id));
  await ledger.recordIngested(id, '106540352242922', Array.from({ length: rows }, (_, i) => queuedRow(i + 1)));
  await ledger.finishIngest(id);
}
