/** What one purge of a campaign did. */
export interface PurgeResult {
  /** Rows whose personal data was deleted now (0 when it was purged before). */
  rows: number;
  /** Message-ID index entries removed. */
  wamids: number;
  /** When the ledger's data was purged (ms, the ledger's clock). */
  purgedAt: number;
  /** True when an earlier purge had already finished. */
  alreadyPurged: boolean;
  phoneNumberId: string;
}

/** `campaign purge` and RETENTION_DAYS: the ledger's part of deleting a finished campaign's personal data. */
export interface PurgeLedger {
  /**
   * Deletes a finished campaign's personal data (its rows); its counts and state stay, with
   * `purgedAt`. CAMPAIGN_NOT_FOUND, or CAMPAIGN_STATE_CONFLICT when it has not finished.
   */
  purge(campaignId: string): Promise<PurgeResult>;
  /** The retention run's lock (one worker at a time purges): its release, or undefined when another holds it. */
  lockRetention(): Promise<(() => Promise<void>) | undefined>;
}
