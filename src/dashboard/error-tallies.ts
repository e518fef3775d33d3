import type { CampaignCounts } from '../campaigns/campaign.js';
import { CODED_STATUSES, type ErrorCodeCount } from '../campaigns/report/error-codes.js';

/** A campaign's errors by code, and when they were counted (ms). */
export type ErrorTally = ErrorCodeCount & { at: number };

/** A tally whose campaign's coded counts moved is counted again once it is this old. */
export const ERROR_TALLY_MIN_AGE_MS = 10_000;

interface Entry {
  tally: ErrorTally;
  /** The campaign's coded counts when it was counted: unchanged counts, unchanged tally. */
  signature: string;
}

/**
 * Errors by code per campaign, cached. A tally stays good while the campaign's failed,
 * unknown, rejected and skipped counts are what they were when it was made (a finished
 * campaign is counted once); when they moved it is counted again, at most every
 * ERROR_TALLY_MIN_AGE_MS. A campaign with none of those rows is never scanned. Scans run one
 * at a time: `peek` (the campaigns list) never waits for one, it starts it and shows what
 * is known; `fresh` (a campaign's own page) waits.
 */
export class ErrorTallies {
  readonly #scan: (campaignId: string) => Promise<ErrorTally>;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #running = new Map<string, Promise<ErrorTally>>();
  /** The one-at-a-time chain of scans. */
  #chain: Promise<unknown> = Promise.resolve();

  constructor(options: { scan: (campaignId: string) => Promise<ErrorTally>; now?: () => number }) {
    this.#scan = options.scan;
    this.#now = options.now ?? Date.now;
  }

  /** What is known now (undefined: not counted yet); starts a count in the background when it is missing or stale. */
  peek(campaignId: string, counts: CampaignCounts): ErrorTally | undefined {
    const signature = signatureOf(counts);
    if (signature === undefined) return this.#empty();
    const entry = this.#entries.get(campaignId);
    if (this.#stale(entry, signature)) void this.#count(campaignId, signature).catch(() => undefined);
    return entry?.tally;
  }

  /** A tally no older than the rules allow, counted now if need be. */
  async fresh(campaignId: string, counts: CampaignCounts): Promise<ErrorTally> {
    const signature = signatureOf(counts);
    if (signature === undefined) return this.#empty();
    const entry = this.#entries.get(campaignId);
    return entry !== undefined && !this.#stale(entry, signature) ? entry.tally : this.#count(campaignId, signature);
  }

  /** Forgets campaigns no longer listed. */
  retain(campaignIds: readonly string[]): void {
    const keep = new Set(campaignIds);
    for (const id of this.#entries.keys()) if (!keep.has(id)) this.#entries.delete(id);
  }

  #stale(entry: Entry | undefined, signature: string): boolean {
    if (entry === undefined) return true;
    return entry.signature !== signature && this.#now() - entry.tally.at >= ERROR_TALLY_MIN_AGE_MS;
  }

  #count(campaignId: string, signature: string): Promise<ErrorTally> {
    const running = this.#running.get(campaignId);
    if (running !== undefined) return running;
    const scan = this.#chain.then(() => this.#scan(campaignId));
    const done = scan
      .then((tally) => {
        this.#entries.set(campaignId, { tally, signature });
        return tally;
      })
      .finally(() => this.#running.delete(campaignId));
    this.#running.set(campaignId, done);
    this.#chain = done.catch(() => undefined);
    return done;
  }

  #empty(): ErrorTally {
    return { codes: [], scanned: 0, complete: true, at: this.#now() };
  }
}

/** The coded counts as one string; undefined when the campaign has no such row (nothing to count). */
function signatureOf(counts: CampaignCounts): string | undefined {
  const values = CODED_STATUSES.map((s) => counts[s]);
  return values.every((n) => n === 0) ? undefined : values.join('/');
}
