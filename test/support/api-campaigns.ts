import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import type { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { feedAll, ledgerTestDefinition, LEDGER_TEST_NUMBER, queuedRow } from './ledger-fixtures.js';

/** What a row of an answered campaign became. */
export type RowAnswer = 'sent' | 'failed' | 'queued';

/**
 * A campaign made in the ledger as a worker would leave it, without one: `answers[i]` is
 * row i+1's outcome (`queued` rows are left waiting). Rows answered are fed, claimed and
 * settled as the worker does; a campaign whose rows are all answered is completed.
 */
export async function answeredCampaign(
  ledger: RedisLedger,
  id: string,
  answers: readonly RowAnswer[],
  definition: Partial<CampaignDefinition> = {},
): Promise<void> {
  await ledger.createCampaign({ ...ledgerTestDefinition(id), ...definition });
  await ledger.recordIngested(
    id,
    LEDGER_TEST_NUMBER,
    answers.map((_, i) => queuedRow(i + 1)),
  );
  await ledger.finishIngest(id);
  if (answers.every((answer) => answer === 'queued')) return;
  await feedAll(ledger);
  for (const [i, answer] of answers.entries()) {
    if (answer === 'queued') continue;
    const job = { campaignId: id, row: i + 1 };
    await ledger.claim(job, LEDGER_TEST_NUMBER);
    await ledger.settle(
      job,
      answer === 'sent' ? { status: 'sent', wamid: `wamid.${id}.${i + 1}` } : { status: 'failed', errorCode: '131026', errorDetail: 'x' },
      LEDGER_TEST_NUMBER,
    );
  }
}
