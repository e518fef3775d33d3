import type { LedgerClock } from './ledger-clock.js';
import type { PurgeLedger } from '../../campaigns/control/purge-ledger.js';
import type { CampaignLedger } from '../../campaigns/ledger.js';
import type { CampaignCountersReader } from '../../campaigns/report/campaign-counters.js';
import type { ErrorCodeLedger } from '../../campaigns/report/error-codes.js';
import type { TimelineLedger } from '../../campaigns/report/campaign-timeline.js';
import type { RedisClient } from '../key-scope.js';
import { LedgerContext, type LedgerOptions } from './ledger-context.js';
import { LedgerControls } from './ledger-controls.js';
import { LedgerCosts } from './ledger-costs.js';
import { LedgerDelivery } from './ledger-delivery.js';
import { LedgerFeed } from './ledger-feed.js';
import { LedgerIngest } from './ledger-ingest.js';
import { LedgerMarketingCaps } from './ledger-marketing-caps.js';
import { LedgerOptOuts } from './ledger-optouts.js';
import { LedgerPurge } from './ledger-purge.js';
import { LedgerReads } from './ledger-reads.js';
import { LedgerSend } from './ledger-send.js';
import { LedgerTemplates } from './ledger-templates.js';
import { LedgerTimeline } from './ledger-timeline.js';

export type { AutoPauseSettings, LedgerOptions } from './ledger-context.js';
export { PRIORITY_SCORE } from './ledger-ingest.js';
export { campaignLedgerKeys, confirmKeys, feedKeys, laneBacklogKey, sentGuardKeys, wamidsKey } from './ledger-keys.js';

/**
 * The campaign ledger in Redis: a hash per campaign (definition, counters, state), a hash of
 * its rows, its backlog, and per phone number the duplicate guard, the feed window and the
 * in-doubt rows (src/redis/lua/README.md). Each role is a part of its own, all sharing one
 * LedgerContext (the connection, prefix, clock and settings). RedisLedger is the parts' methods
 * under one name, for the ports of src/campaigns: each member below hands its call to the
 * part named beside it, typed by that part's method, so its definition is one step away.
 */
export class RedisLedger implements CampaignLedger, PurgeLedger, ErrorCodeLedger, CampaignCountersReader, TimelineLedger {
  readonly #context: LedgerContext;
  readonly #ingest: LedgerIngest;
  readonly #feed: LedgerFeed;
  readonly #send: LedgerSend;
  readonly #delivery: LedgerDelivery;
  readonly #optOuts: LedgerOptOuts;
  readonly #marketingCaps: LedgerMarketingCaps;
  readonly #templates: LedgerTemplates;
  readonly #controls: LedgerControls;
  readonly #purge: LedgerPurge;
  readonly #reads: LedgerReads;
  readonly #costs: LedgerCosts;
  readonly #timeline: LedgerTimeline;

  constructor(redis: RedisClient, prefix: string, options: LedgerOptions = {}) {
    const context = new LedgerContext(redis, prefix, options);
    this.#context = context;
    this.#ingest = new LedgerIngest(context);
    this.#feed = new LedgerFeed(context);
    this.#send = new LedgerSend(context);
    this.#delivery = new LedgerDelivery(context);
    this.#optOuts = new LedgerOptOuts(context);
    this.#marketingCaps = new LedgerMarketingCaps(context);
    this.#templates = new LedgerTemplates(context);
    this.#controls = new LedgerControls(context);
    this.#purge = new LedgerPurge(context);
    this.#reads = new LedgerReads(context);
    this.#costs = new LedgerCosts(context);
    this.#timeline = new LedgerTimeline(context);
  }

  /** The ledger's clock now (ms): Redis's, or the one a test set. */
  now(): Promise<number> {
    return this.#context.clock.now();
  }

  /** The ledger's clock, for the stores that judge time as its scripts do (FREQUENCY_CAPS). */
  ledgerClock(): LedgerClock {
    return this.#context.clock;
  }

  // Reading a CSV into a campaign (ledger-ingest.ts).
  createCampaign: LedgerIngest['createCampaign'] = (...args) => this.#ingest.createCampaign(...args);
  recordIngested: LedgerIngest['recordIngested'] = (...args) => this.#ingest.recordIngested(...args);
  priorSends: LedgerIngest['priorSends'] = (...args) => this.#ingest.priorSends(...args);
  allowRepeat: LedgerIngest['allowRepeat'] = (...args) => this.#ingest.allowRepeat(...args);
  markIngestInterrupted: LedgerIngest['markIngestInterrupted'] = (...args) => this.#ingest.markIngestInterrupted(...args);
  liftIngestPause: LedgerIngest['liftIngestPause'] = (...args) => this.#ingest.liftIngestPause(...args);
  finishIngest: LedgerIngest['finishIngest'] = (...args) => this.#ingest.finishIngest(...args);
  recordLanes: LedgerIngest['recordLanes'] = (...args) => this.#ingest.recordLanes(...args);
  lanes: LedgerIngest['lanes'] = (...args) => this.#ingest.lanes(...args);

  // A number's feed and what the feeder reads (ledger-feed.ts).
  feed: LedgerFeed['feed'] = (...args) => this.#feed.feed(...args);
  windowedCampaigns: LedgerFeed['windowedCampaigns'] = (...args) => this.#feed.windowedCampaigns(...args);
  windowSize: LedgerFeed['windowSize'] = (...args) => this.#feed.windowSize(...args);
  groupDone: LedgerFeed['groupDone'] = (...args) => this.#feed.groupDone(...args);
  recordMessagingLimit: LedgerFeed['recordMessagingLimit'] = (...args) => this.#feed.recordMessagingLimit(...args);

  // Each job's claim and answer, halts, the in-doubt rule (ledger-send.ts).
  claim: LedgerSend['claim'] = (...args) => this.#send.claim(...args);
  settle: LedgerSend['settle'] = (...args) => this.#send.settle(...args);
  halt: LedgerSend['halt'] = (...args) => this.#send.halt(...args);
  isHeld: LedgerSend['isHeld'] = (...args) => this.#send.isHeld(...args);
  confirmInDoubt: LedgerSend['confirmInDoubt'] = (...args) => this.#send.confirmInDoubt(...args);
  retryCapped: LedgerSend['retryCapped'] = (...args) => this.#send.retryCapped(...args);

  // What Meta's webhooks change (ledger-delivery.ts).
  applyStatuses: LedgerDelivery['applyStatuses'] = (...args) => this.#delivery.applyStatuses(...args);
  applyInbound: LedgerDelivery['applyInbound'] = (...args) => this.#delivery.applyInbound(...args);
  applyPreferences: LedgerDelivery['applyPreferences'] = (...args) => this.#delivery.applyPreferences(...args);
  serviceWindowsOpen: LedgerDelivery['serviceWindowsOpen'] = (...args) => this.#delivery.serviceWindowsOpen(...args);

  // Opt-outs, the portfolio's (ledger-optouts.ts).
  optOuts: LedgerOptOuts['optOuts'] = (...args) => this.#optOuts.optOuts(...args);
  optOutsOfPortfolio: LedgerOptOuts['optOutsOfPortfolio'] = (...args) => this.#optOuts.optOutsOfPortfolio(...args);
  addOptOut: LedgerOptOuts['addOptOut'] = (...args) => this.#optOuts.addOptOut(...args);
  removeOptOut: LedgerOptOuts['removeOptOut'] = (...args) => this.#optOuts.removeOptOut(...args);
  recordOptOut: LedgerOptOuts['recordOptOut'] = (...args) => this.#optOuts.recordOptOut(...args);
  addPortfolioOptOut: LedgerOptOuts['addPortfolioOptOut'] = (...args) => this.#optOuts.addPortfolioOptOut(...args);
  removePortfolioOptOut: LedgerOptOuts['removePortfolioOptOut'] = (...args) => this.#optOuts.removePortfolioOptOut(...args);

  // Meta's marketing caps, the portfolio's (ledger-marketing-caps.ts).
  marketingCaps: LedgerMarketingCaps['marketingCaps'] = (...args) => this.#marketingCaps.marketingCaps(...args);
  recordMarketingCap: LedgerMarketingCaps['recordMarketingCap'] = (...args) => this.#marketingCaps.recordMarketingCap(...args);

  // Template holds and categories (ledger-templates.ts).
  applyTemplateStatus: LedgerTemplates['applyTemplateStatus'] = (...args) => this.#templates.applyTemplateStatus(...args);
  templateStatusOf: LedgerTemplates['templateStatusOf'] = (...args) => this.#templates.templateStatusOf(...args);
  recordTemplateInfo: LedgerTemplates['recordTemplateInfo'] = (...args) => this.#templates.recordTemplateInfo(...args);

  // The operator's commands (ledger-controls.ts).
  pause: LedgerControls['pause'] = (...args) => this.#controls.pause(...args);
  resume: LedgerControls['resume'] = (...args) => this.#controls.resume(...args);
  cancel: LedgerControls['cancel'] = (...args) => this.#controls.cancel(...args);
  reschedule: LedgerControls['reschedule'] = (...args) => this.#controls.reschedule(...args);
  markForRetry: LedgerControls['markForRetry'] = (...args) => this.#controls.markForRetry(...args);

  // Purging a finished campaign's personal data (ledger-purge.ts).
  purge: LedgerPurge['purge'] = (...args) => this.#purge.purge(...args);
  lockRetention: LedgerPurge['lockRetention'] = (...args) => this.#purge.lockRetention(...args);

  // Reading campaigns back (ledger-reads.ts).
  getCampaign: LedgerReads['getCampaign'] = (...args) => this.#reads.getCampaign(...args);
  status: LedgerReads['status'] = (...args) => this.#reads.status(...args);
  rows: LedgerReads['rows'] = (...args) => this.#reads.rows(...args);
  rowMessages: LedgerReads['rowMessages'] = (...args) => this.#reads.rowMessages(...args);
  listCampaigns: LedgerReads['listCampaigns'] = (...args) => this.#reads.listCampaigns(...args);
  phoneNumbers: LedgerReads['phoneNumbers'] = (...args) => this.#reads.phoneNumbers(...args);
  laneBacklogs: LedgerReads['laneBacklogs'] = (...args) => this.#reads.laneBacklogs(...args);
  errorCodes: LedgerReads['errorCodes'] = (...args) => this.#reads.errorCodes(...args);
  campaignCounters: LedgerReads['campaignCounters'] = (...args) => this.#reads.campaignCounters(...args);

  // A campaign's costs (ledger-costs.ts) and its charts' timeline (ledger-timeline.ts).
  recordCostEstimate: LedgerCosts['recordCostEstimate'] = (...args) => this.#costs.recordCostEstimate(...args);
  recordedCosts: LedgerCosts['recordedCosts'] = (...args) => this.#costs.recordedCosts(...args);
  timeline: LedgerTimeline['timeline'] = (...args) => this.#timeline.timeline(...args);
}
