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
   * Deletes a finished campaign's rows (phone numbers, values, details), its backlog and its
   * entries in the message-ID index; its definition, counts and state stay, with `purgedAt`.
   * Refuses a campaign that is not there (CAMPAIGN_NOT_FOUND) or not finished
   * (CAMPAIGN_STATE_CONFLICT). Safe to run again after an interruption.
   */
  purge(campaignId: string): Promise<PurgeResult>;
  /**
   * The retention run's lock, so one worker at a time purges: a release when this process got
   * it, undefined when another holds it (it lapses after 10 minutes if its holder died).
   */
  lockRetention(): Promise<(() => Promise<void>) | undefined>;
}
