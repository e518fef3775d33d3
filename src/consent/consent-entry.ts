/**
 * Consent on record: Meta asks that a business can show when and how each person opted in to
 * its business-initiated messages. Each opt-in and opt-out the product learns (a consent file,
 * an audience's consent column, `user_preferences`, an opt-out keyword, an operator) is one
 * entry of the recipient's history in their business portfolio.
 */
export interface ConsentEntry {
  /** E.164. */
  phone: string;
  kind: 'opt-in' | 'opt-out';
  /** ms since the epoch: when the person opted in or out (as the source says, else when it was learnt). */
  at: number;
  /** How it was given, in words an auditor reads: `consent file signup.csv: web form`, `user_preferences resume`. */
  source: string;
}

/** A portfolio's consent histories. */
export interface ConsentStore {
  /** Adds entries to their recipients' histories (each kept newest first, bounded). */
  record(portfolio: string, entries: readonly ConsentEntry[]): Promise<void>;
  /** One recipient's history, newest first; empty when nothing is on record. */
  history(portfolio: string, phone: string): Promise<ConsentEntry[]>;
  /** Per phone, in order: whether its newest entry is an opt-in (what `--require-consent` asks for). */
  consented(portfolio: string, phones: readonly string[]): Promise<boolean[]>;
}
