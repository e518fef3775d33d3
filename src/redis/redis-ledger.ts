import type { PurgeLedger } from '../campaigns/control/purge-ledger.js';
import type { CampaignLedger, DeliveryLedger, SendLedger } from '../campaigns/ledger.js';
import type { CampaignCountersReader } from '../campaigns/report/campaign-counters.js';
import type { ErrorCodeLedger } from '../campaigns/report/error-codes.js';
import type { RedisClient } from './key-scope.js';
import { LedgerClaims } from './ledger-claims.js';
import { LedgerContext, type LedgerOptions } from './ledger-context.js';
import { LedgerControls } from './ledger-controls.js';
import { LedgerCounters } from './ledger-counters.js';
import { LedgerDelivery } from './ledger-delivery.js';
import { LedgerErrorCodes } from './ledger-error-codes.js';
import { LedgerFeed } from './ledger-feed.js';
import { LedgerIngest } from './ledger-ingest.js';
import { LedgerPurge } from './ledger-purge.js';
import { LedgerReads } from './ledger-reads.js';

export type { AutoPauseSettings, LedgerOptions } from './ledger-context.js';
export { PRIORITY_SCORE } from './ledger-ingest.js';
export { campaignLedgerKeys, confirmKeys, feedKeys, laneBacklogKey, sentGuardKeys, wamidsKey } from './ledger-keys.js';

/**
 * The campaign ledger in Redis: a hash per campaign (definition, counters, state), a hash of
 * its rows, its backlog, and per phone number the duplicate guard, the feed window and the
 * in-doubt rows (src/redis/lua/README.md). Each role is a part of its own, all sharing one
 * LedgerContext (the connection, prefix, clock and settings): ingest (ledger-ingest.ts),
 * feed (ledger-feed.ts), claims and answers (ledger-claims.ts), delivery and webhooks
 * (ledger-delivery.ts), controls (ledger-controls.ts, ledger-purge.ts), reads
 * (ledger-reads.ts, ledger-error-codes.ts, ledger-counters.ts). RedisLedger is their methods
 * together: each is its part's own, bound to it when the ledger is made.
 */
export class RedisLedger implements CampaignLedger, PurgeLedger, ErrorCodeLedger, CampaignCountersReader {
  // Ingest.
  declare createCampaign: LedgerIngest['createCampaign'];
  declare getCampaign: LedgerIngest['getCampaign'];
  declare recordIngested: LedgerIngest['recordIngested'];
  declare priorSends: LedgerIngest['priorSends'];
  declare allowRepeat: LedgerIngest['allowRepeat'];
  declare markIngestInterrupted: LedgerIngest['markIngestInterrupted'];
  declare liftIngestPause: LedgerIngest['liftIngestPause'];
  declare finishIngest: LedgerIngest['finishIngest'];
  declare recordLanes: LedgerIngest['recordLanes'];
  declare lanes: LedgerIngest['lanes'];
  // Feed, claims and answers.
  declare feed: LedgerFeed['feed'];
  declare windowedCampaigns: LedgerFeed['windowedCampaigns'];
  declare windowSize: LedgerFeed['windowSize'];
  declare recordMessagingLimit: LedgerFeed['recordMessagingLimit'];
  declare claim: LedgerClaims['claim'];
  declare settle: LedgerClaims['settle'];
  declare halt: LedgerClaims['halt'];
  declare isHeld: LedgerClaims['isHeld'];
  declare confirmInDoubt: LedgerClaims['confirmInDoubt'];
  // Delivery and webhooks, opt-outs.
  declare applyStatuses: DeliveryLedger['applyStatuses'];
  declare applyInbound: DeliveryLedger['applyInbound'];
  declare applyPreferences: DeliveryLedger['applyPreferences'];
  declare serviceWindowsOpen: DeliveryLedger['serviceWindowsOpen'];
  declare recordOptOut: SendLedger['recordOptOut'];
  declare addOptOut: SendLedger['addOptOut'];
  declare removeOptOut: SendLedger['removeOptOut'];
  declare optOuts: LedgerDelivery['optOuts'];
  // Controls.
  declare pause: LedgerControls['pause'];
  declare resume: LedgerControls['resume'];
  declare cancel: LedgerControls['cancel'];
  declare reschedule: LedgerControls['reschedule'];
  declare markForRetry: LedgerControls['markForRetry'];
  declare purge: LedgerPurge['purge'];
  declare lockRetention: LedgerPurge['lockRetention'];
  // Reads.
  declare status: LedgerReads['status'];
  declare rows: LedgerReads['rows'];
  declare listCampaigns: LedgerReads['listCampaigns'];
  declare phoneNumbers: LedgerReads['phoneNumbers'];
  declare laneBacklogs: LedgerReads['laneBacklogs'];
  declare errorCodes: LedgerErrorCodes['errorCodes'];
  declare campaignCounters: LedgerCounters['campaignCounters'];

  readonly #context: LedgerContext;

  constructor(redis: RedisClient, prefix: string, options: LedgerOptions = {}) {
    const context = new LedgerContext(redis, prefix, options);
    this.#context = context;
    const parts = [LedgerIngest, LedgerFeed, LedgerClaims, LedgerDelivery, LedgerControls, LedgerPurge, LedgerReads, LedgerErrorCodes, LedgerCounters].map((Part) => new Part(context));
    for (const part of parts) {
      for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(part))) {
        if (name === 'constructor') continue;
        if (Object.hasOwn(this, name)) throw new Error(`RedisLedger: two parts define ${name}`);
        const method = (part as unknown as Record<string, (...args: unknown[]) => unknown>)[name];
        Object.defineProperty(this, name, { value: method?.bind(part), enumerable: true, writable: true });
      }
    }
  }

  /** The ledger's clock now (ms): Redis's, or the one a test set. */
  now(): Promise<number> {
    return this.#context.clock.now();
  }
}
