/**
 * An audience: a named list of contacts of one business portfolio that outlives the file it
 * came from. Each contact is a phone number (E.164) with attributes, one per column the
 * imports brought (the audience's columns, in the order they first came).
 */

/** One contact: its phone and its attributes (column → cell; a column it has no value for reads as ''). */
export interface AudienceContact {
  phone: string;
  attributes: Record<string, string>;
}

/** What the last import into an audience counted. */
export interface AudienceImportCounts {
  read: number;
  added: number;
  updated: number;
  rejected: number;
  duplicates: number;
}

/** An audience as listed. */
export interface AudienceSummary {
  name: string;
  contacts: number;
  /** The attribute columns, in order. */
  columns: string[];
  /** ms since the epoch. */
  createdAt: number;
  /** ms since the epoch: the last import (what AUDIENCE_RETENTION_DAYS counts from). */
  updatedAt: number;
  /** The base name of the file last imported. */
  importedFrom: string;
  /** The last import's counts. */
  lastImport: AudienceImportCounts;
}

/** An audience with what its contacts hold. */
export interface AudienceDetail extends AudienceSummary {
  portfolio: string;
  /** Per column: how many contacts have a non-empty value in it. */
  filled: Record<string, number>;
  /** Contacts on the portfolio's opt-outs. */
  optedOut: number;
  /** Contacts whose newest consent entry is an opt-in. */
  withConsent: number;
  /** Contacts whose business-scoped user ID the webhooks taught. */
  withUserId: number;
  /** Redis memory the contacts take (MEMORY USAGE, sampled), in bytes. */
  bytes: number;
}

/** One refused record of an import, for the rejects file. */
export interface AudienceRefusal {
  row: number;
  phone: string;
  reason: string;
  detail: string;
}

/** What `campaign audiences import` reports. */
export interface AudienceImportOutcome extends AudienceImportCounts {
  name: string;
  portfolio: string;
  /** Whether the audience was created by this import (it did not exist, or `replace` was given). */
  created: boolean;
  /** `replace`: the contacts the audience had before, now gone unless the file had them. */
  replaced: number | undefined;
  /** The audience's columns after the import. */
  columns: string[];
  /** Contacts in the audience now. */
  contacts: number;
  /** Redis memory of its contacts now (sampled), in bytes. */
  bytes: number;
  /** Opt-ins recorded in the consent store from the consent column. */
  consentRecorded: number;
  /** Where the refused records were written (`row,phone,reason`); undefined when none. */
  rejectsFile: string | undefined;
  delimiter: string;
}
