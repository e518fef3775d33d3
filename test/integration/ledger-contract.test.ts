import { describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { describeLedgerContract } from '../support/ledger-contract.js';
import { testRedis } from '../support/redis.js';

/** The ledger's specification (test/support/ledger-contract.ts) on the shared test Redis. */
describeLedgerContract('RedisLedger on a real Redis', testRedis);

/** Every method RedisLedger declares, each once: the list is complete by its type (a missing or extra name does not compile). */
const METHODS = {
  createCampaign: 0,
  getCampaign: 0,
  recordIngested: 0,
  priorSends: 0,
  allowRepeat: 0,
  markIngestInterrupted: 0,
  liftIngestPause: 0,
  finishIngest: 0,
  recordLanes: 0,
  lanes: 0,
  feed: 0,
  windowedCampaigns: 0,
  windowSize: 0,
  recordMessagingLimit: 0,
  claim: 0,
  settle: 0,
  halt: 0,
  isHeld: 0,
  confirmInDoubt: 0,
  applyStatuses: 0,
  applyInbound: 0,
  applyPreferences: 0,
  serviceWindowsOpen: 0,
  applyTemplateStatus: 0,
  recordTemplateInfo: 0,
  templateStatusOf: 0,
  recordOptOut: 0,
  addOptOut: 0,
  removeOptOut: 0,
  optOuts: 0,
  optOutsOfPortfolio: 0,
  addPortfolioOptOut: 0,
  removePortfolioOptOut: 0,
  marketingCaps: 0,
  recordMarketingCap: 0,
  pause: 0,
  resume: 0,
  cancel: 0,
  reschedule: 0,
  markForRetry: 0,
  purge: 0,
  lockRetention: 0,
  status: 0,
  rows: 0,
  rowMessages: 0,
  listCampaigns: 0,
  phoneNumbers: 0,
  laneBacklogs: 0,
  errorCodes: 0,
  campaignCounters: 0,
  recordCostEstimate: 0,
  recordedCosts: 0,
  timeline: 0,
  now: 0,
  ledgerClock: 0,
  retryCapped: 0,
  groupDone: 0,
} satisfies Record<keyof RedisLedger, 0>;

describe('RedisLedger is its parts’ methods together', () => {
  it('has every method it declares, bound to the part that implements it', async () => {
    const redis = testRedis();
    try {
      const ledger = new RedisLedger(redis, 'never-written');
      const missing = Object.keys(METHODS).filter((name) => typeof (ledger as unknown as Record<string, unknown>)[name] !== 'function');
      expect(missing).toEqual([]);
      // Bound: a method taken off the ledger still reaches its part.
      const { listCampaigns } = ledger;
      expect(await listCampaigns()).toEqual([]);
    } finally {
      await redis.quit();
    }
  });
});
