/** One row's tracked link, as the ingest hands it to the store: the token its button carries and where it leads. */
export interface ClickLink {
  token: string;
  row: number;
  /** The row's destination, an http(s) URL from its `clickUrlColumn`. */
  url: string;
}

/** Where a token leads, as `GET /c/{token}` finds it: the click is recorded on that row. */
export interface ClickTarget {
  phoneNumberId: string;
  campaignId: string;
  row: number;
  url: string;
}

/** A click recorded: where to send the visitor, and whether it was the row's first. */
export interface RecordedClick {
  url: string;
  first: boolean;
  clicks: number;
}

/**
 * The index of tracked links (src/redis/clicks/redis-click-links.ts): written as rows are read,
 * asked by `serve` for each click, read by retarget for each row's destination, dropped with the
 * campaign's personal data.
 */
export interface ClickLinks {
  /** Records a chunk of a campaign's links before its rows are queued, so a sent link always resolves. */
  record(phoneNumberId: string, campaignId: string, links: readonly ClickLink[]): Promise<void>;
  /** Records a click on the link of `token`; undefined for a token no campaign has (never made, or purged). */
  click(token: string): Promise<RecordedClick | undefined>;
  /** The destination of each token of the campaign, in order (undefined where unknown). */
  destinations(phoneNumberId: string, campaignId: string, tokens: readonly string[]): Promise<(string | undefined)[]>;
  /** Forgets every link of the campaign (its purge): their tokens then answer 404. Returns how many went. */
  forget(phoneNumberId: string, campaignId: string): Promise<number>;
}
