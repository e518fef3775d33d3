import { AppError } from '../../errors/app-error.js';
import { canonicalZone, zonesOfNumber } from '../../phone/recipient-zones.js';
import { boundedBadValue } from './bad-value.js';
import type { CampaignDefinition } from '../campaign.js';
import type { CampaignLedger } from '../ledger.js';

/** What placing rows in lanes needs of the ledger. */
type LaneLedger = Pick<CampaignLedger, 'lanes' | 'recordLanes'>;
import type { RejectionReason } from '../rejection-reasons.js';

export type Placement = { ok: true; lane: number } | { ok: false; reason: RejectionReason; detail: string };

/**
 * Ingest of a campaign with a send window: puts each row in the lane of its recipient's time
 * zones (from `--timezone-column`, else from the number), numbering lanes as they appear and
 * keeping the numbers of a campaign that is being continued. The feeder opens and closes
 * lanes by their zones' local time.
 */
export class SendLanes {
  readonly #ledger: LaneLedger;
  readonly #campaignId: string;
  readonly #column: { index: number; name: string } | undefined;
  readonly #indexOf = new Map<string, number>();
  readonly #zones: string[][] = [];
  readonly #rows: number[] = [];
  /** Lanes numbered since the last recordNew. */
  #unrecorded: number[] = [];

  private constructor(ledger: LaneLedger, campaignId: string, column: { index: number; name: string } | undefined, known: string[][]) {
    this.#ledger = ledger;
    this.#campaignId = campaignId;
    this.#column = column;
    for (const zones of known) this.#add(zones);
  }

  /** The lanes of `definition` (those of an existing campaign included); a missing time-zone column refuses the file. */
  static async open(ledger: LaneLedger, definition: CampaignDefinition, header: readonly string[], file: string, dryRun: boolean): Promise<SendLanes> {
    const name = definition.source.timezoneColumn;
    let column: { index: number; name: string } | undefined;
    if (name !== undefined) {
      const index = header.indexOf(name);
      if (index < 0) {
        throw new AppError(
          'CSV_HEADER_INVALID',
          `${file}: the header has no time-zone column "${name}" (--timezone-column). Columns found: ${header.map((c) => `"${c}"`).join(', ')}; nothing was enqueued.`,
        );
      }
      column = { index, name };
    }
    const known = dryRun ? [] : await ledger.lanes(definition.id);
    const lanes = new SendLanes(ledger, definition.id, column, known);
    lanes.#unrecorded = [];
    return lanes;
  }

  /** The row's lane, or why it cannot have one. */
  place(fields: readonly string[], phone: string, country: string | undefined): Placement {
    let zones: readonly string[];
    const cell = this.#column === undefined ? '' : (fields[this.#column.index] ?? '').trim();
    if (cell !== '') {
      const zone = canonicalZone(cell);
      if (zone === undefined) {
        return {
          ok: false,
          reason: 'TIMEZONE_INVALID',
          detail: `column "${this.#column?.name ?? ''}": "${boundedBadValue(cell)}" is not an IANA time zone; write it as Area/City, e.g. Europe/Berlin or America/New_York`,
        };
      }
      zones = [zone];
    } else {
      zones = zonesOfNumber(phone, country);
      if (zones.length === 0) {
        const where = this.#column === undefined ? 'pass --timezone-column with' : `fill column "${this.#column.name}" with`;
        return { ok: false, reason: 'TIMEZONE_UNKNOWN', detail: `no time zone is known for ${phone} (a number of no country); ${where} the recipient's zone, e.g. Europe/Berlin` };
      }
    }
    const key = zones.join('&');
    const lane = this.#indexOf.get(key) ?? this.#add(zones);
    this.#rows[lane] = (this.#rows[lane] ?? 0) + 1;
    return { ok: true, lane };
  }

  /** A placed row that is not sent after all (WINDOW_CLOSED): it no longer counts in its lane. */
  release(lane: number): void {
    this.#rows[lane] = Math.max(0, (this.#rows[lane] ?? 0) - 1);
  }

  /** Writes the lanes numbered since the last call, before the rows that name them. */
  async recordNew(): Promise<void> {
    if (this.#unrecorded.length === 0) return;
    const fresh = this.#unrecorded.map((index) => ({ index, zones: this.#zones[index] ?? [] }));
    this.#unrecorded = [];
    await this.#ledger.recordLanes(this.#campaignId, fresh);
  }

  /** Rows placed by this ingest, per lane that got any. */
  rowsPerLane(): { zones: string[]; rows: number }[] {
    return this.#zones.map((zones, i) => ({ zones, rows: this.#rows[i] ?? 0 })).filter((lane) => lane.rows > 0);
  }

  #add(zones: readonly string[]): number {
    const index = this.#zones.length;
    this.#zones.push([...zones]);
    this.#rows.push(0);
    this.#indexOf.set(zones.join('&'), index);
    this.#unrecorded.push(index);
    return index;
  }
}
