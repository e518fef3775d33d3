import type { CampaignDefinition, RowStatus } from '../campaign.js';
import type { OptOutSource } from '../ledger.js';
import type { RejectionReason } from '../rejection-reasons.js';
import type { FieldNames } from '../spec/field-names.js';
import type { OptOutOrigin } from './opted-out.js';
import type { ClickLinks } from '../../clicks/click-links.js';

/**
 * What an ingest takes and gives (produceCampaign's input and summary, and a refused row), apart from the producer so
 * the ingest run that fills them need not import the producer that runs it.
 */

export interface ProduceSummary {
  id: string;
  /** Its name: this run's, or the one a continued campaign was created with. */
  name?: string | undefined;
  /** Data records read from the file (every one is in the campaign: queued, rejected or skipped). */
  rows: number;
  /** Rows that passed every check (in a dry run: rows that would be queued). */
  valid: number;
  /** Rows queued for sending by this run (a row already sent or queued by an earlier run is not counted again). */
  queued: number;
  rejected: number;
  skipped: number;
  byReason: Partial<Record<RejectionReason, number>>;
  delimiter: string;
  /** Rows an earlier run rejected that this run found valid (a fixed file sent again into the campaign). */
  reopened: number;
  /**
   * A continued campaign (`--campaign ID`): rows it had already queued or sent, matched to the
   * same recipient at the same row number and left as they are (none is sent twice).
   */
  kept: number;
  keptByStatus: Partial<Record<RowStatus, number>>;
  /** The campaign's start and expiry: this run's, or those a continued campaign was created with. */
  schedule: Pick<CampaignDefinition, 'startsAt' | 'expiresAt'>;
  /** OPTED_OUT rows by where the opt-out was learnt (Meta's 131050, a keyword, WhatsApp's settings, an operator). */
  optedOutBy: Partial<Record<OptOutOrigin, number>>;
  /** MARKETING_CAP_WAIT rows: when the last of their marketing caps ends (ms); undefined when none was skipped. */
  marketingCapUntil: number | undefined;
  /** Set when reading stopped early (Ctrl-C, SIGTERM): the last row read. The campaign is paused. */
  interruptedAtRow: number | undefined;
  /** With a send window: rows to send per lane (the time zones they wait for), in lane order. */
  lanes: { zones: string[]; rows: number }[];
  /** Rows to send (`valid`) by the ISO country of their number ('' for a number of no country): the cost estimate's markets. */
  byCountry: Record<string, number>;
  /** With a language per row (`--language-column`): rows to send by the language they are sent in; empty otherwise. */
  byLanguage: Record<string, number>;
  /**
   * FREQUENCY_CAPS: rows to send whose recipient is over a cap now (an estimate: caps are checked at each row's claim,
   * and a window may have moved on by then); 0 without caps.
   */
  frequencyCapped: number;
}

/** A row refused before sending, for the rejects file. */
export interface RefusedRow {
  row: number;
  line: number;
  phone: string;
  reason: RejectionReason;
  detail: string;
}

export interface ProduceInput {
  file: string;
  delimiter?: string | undefined;
  /**
   * Called with the CSV header before any row is read: returns the campaign, or throws to
   * refuse the whole file (a mapping that does not fit the template). Nothing is written first.
   */
  define: (header: readonly string[]) => CampaignDefinition;
  /** Check every row, write nothing: no campaign, no job. */
  dryRun?: boolean;
  /** Rows per ledger write (default 250). */
  chunkSize?: number;
  /** Called once the file and the mapping are accepted, before the campaign is written or a row read. */
  onStart?: (start: { estimatedRows: number; continuing: boolean }) => void;
  onProgress?: (rowsRead: number) => void;
  onRefused?: (refused: RefusedRow) => void;
  /**
   * Recipients not to send to (for a MARKETING template or a text: those who stopped
   * marketing messages, Meta 131050), each with where that was learnt. Their rows are skipped.
   */
  optedOut?: ReadonlyMap<string, OptOutSource>;
  /**
   * A MARKETING template: recipients whose marketing cap (Meta's 131049) holds now, each with when
   * its wait ends (ms). Their rows are skipped (MARKETING_CAP_WAIT).
   */
  marketingCapped?: ReadonlyMap<string, number>;
  /** A MARKETING template without `--allow-us-marketing`: rows to US numbers are skipped (MARKETING_US_PAUSED). */
  usMarketingPaused?: boolean;
  /** `--allow-repeat`: no ALREADY_SENT check for this campaign. */
  allowRepeat?: boolean;
  /** `--require-consent` and a MARKETING template: per phone, whether an opt-in is on record; the others are skipped (NO_CONSENT). */
  consented?: ((phones: readonly string[]) => Promise<boolean[]>) | undefined;
  /** FREQUENCY_CAPS: per phone, whether a cap holds now (counted in the plan, not skipped: the claim decides). */
  frequencyCapped?: ((phones: readonly string[]) => Promise<boolean[]>) | undefined;
  /** A campaign that tracks clicks (its definition's `clicks`): each chunk's links are recorded here before its rows are queued. */
  clickLinks?: ClickLinks | undefined;
  /** How the spec's fields are named where it came from (flags, JSON fields), for refusals that say which to change. */
  names: FieldNames;
  /**
   * Aborted by Ctrl-C or SIGTERM: reading stops, what was read is kept (every row read is
   * recorded and queued), and the campaign pauses with "ingest interrupted at row N".
   */
  signal?: AbortSignal;
}
