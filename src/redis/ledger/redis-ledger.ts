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
import { LedgerIngest } from './ledger-ingest.js';
import { LedgerMarketingCaps } from './ledger-marketing-caps.js';
import { LedgerTemplates } from './ledger-templates.js';
import { LedgerReads } from './ledger-reads.js';
import { LedgerSend } from './ledger-send.js';
import { LedgerTimeline } from './ledger-timeline.js';

export type { AutoPauseSettings, LedgerOptions } from './ledger-context.js';
export { PRIORITY_SCORE } from './ledger-ingest.js';
export { campaignLedgerKeys, confirmKeys, feedKeys, laneBacklogKey, sentGuardKeys, wamidsKey } from './ledger-keys.js';

/** A part's public methods. The constructor binds them onto each ledger; the interface below says so to the type. */
type PartMethods<P> = Pick<P, keyof P>;
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface RedisLedger
  extends
    PartMethods<LedgerIngest>,
    PartMethods<LedgerSend>,
    PartMethods<LedgerDelivery>,
    PartMethods<LedgerMarketingCaps>,
    PartMethods<LedgerControls>,
    PartMethods<LedgerReads>,
    PartMethods<LedgerTemplates>,
    PartMethods<LedgerCosts>,
    PartMethods<LedgerTimeline> {}

/**
 * The campaign ledger in Redis: a hash per campaign (definition, counters, state), a hash of
 * its rows, its backlog, and per phone number the duplicate guard, the feed window and the
 * in-doubt rows (src/redis/lua/README.md). Each role is a part of its own, all sharing one
 * LedgerContext (the connection, prefix, clock and settings): ingest (ledger-ingest.ts); feed,
 * claim and settle (ledger-send.ts); delivery and webhooks (ledger-delivery.ts); Meta's
 * marketing caps (ledger-marketing-caps.ts); controls
 * (ledger-controls.ts); reads (ledger-reads.ts); template holds (ledger-templates.ts); costs
 * (ledger-costs.ts); the charts' timeline (ledger-timeline.ts). RedisLedger is their methods
 * together: each is its part's own, bound to it when the ledger is made.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class RedisLedger implements CampaignLedger, PurgeLedger, ErrorCodeLedger, CampaignCountersReader, TimelineLedger {
  readonly #context: LedgerContext;

  constructor(redis: RedisClient, prefix: string, options: LedgerOptions = {}) {
    const context = new LedgerContext(redis, prefix, options);
    this.#context = context;
    const parts = [
      LedgerIngest,
      LedgerSend,
      LedgerDelivery,
      LedgerMarketingCaps,
      LedgerControls,
      LedgerReads,
      LedgerTemplates,
      LedgerCosts,
      LedgerTimeline,
    ].map((Part) => new Part(context));
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
