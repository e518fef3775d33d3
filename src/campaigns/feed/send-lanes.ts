import { AppError } from '../../errors/app-error.js';
import { canonicalZone, zonesOfNumber } from '../../phone/recipient-zones.js';
import { describeWindow, nextOpening, type SendWindow } from './send-window.js';
import { boundedBadValue } from '../ingest/bad-value.js';
import type { CampaignDefinition } from '../campaign.js';
import type { CampaignLedger } from '../ledger.js';
import type { FieldNames } from '../spec/field-names.js';

/** What placing rows in lanes needs of the ledger. */
type LaneLedger = Pick<CampaignLedger, 'lanes' | 'recordLanes'>;
import type { RejectionReason } from '../rejection-reasons.js';

export type Placement = { ok: true; lane: number } | { ok: false; reason: RejectionReason; detail: string; status: 'rejected' | 'skipped' };

/**
 * A lane whose window does not open within this long of the start never opens: a week covers
 * every weekday of `--days`, and a day more every offset between the zones.
 */
const NEVER_OPEN_HORIZON_MS = 8 * 86_400_000;

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
  readonly #window: SendWindow;
  readonly #startsAt: number;
  readonly #defaultZone: string | undefined;
  /** Per set of zones (joined with &): whether the window opens in all of them at once. */
  readonly #opens = new Map<string, boolean>();
  readonly #indexOf = new Map<string, number>();
  readonly #zones: string[][] = [];
  readonly #rows: number[] = [];
  /** Lanes numbered since the last recordNew. */
  #unrecorded: number[] = [];

  private constructor(
    ledger: LaneLedger,
    definition: CampaignDefinition & { window: SendWindow },
    column: { index: number; name: string } | undefined,
    known: string[][],
    now: number,
  ) {
    this.#ledger = ledger;
    this.#campaignId = definition.id;
    this.#column = column;
    this.#window = definition.window;
    this.#startsAt = Math.max(definition.startsAt ?? now, now);
    this.#defaultZone = definition.source.defaultTimezone;
    for (const zones of known) this.#add(zones);
  }

  /**
   * The lanes of `definition` (those of an existing campaign included); a missing time-zone column refuses the file, naming the option as
   * `names` says.
   */
  static async open(
    ledger: LaneLedger,
    definition: CampaignDefinition & { window: SendWindow },
    header: readonly string[],
    file: string,
    dryRun: boolean,
    names: Pick<FieldNames, 'csv.timezoneColumn'>,
    now = Date.now(),
  ): Promise<SendLanes> {
    const name = definition.source.timezoneColumn;
    let column: { index: number; name: string } | undefined;
    if (name !== undefined) {
      const index = header.indexOf(name);
      if (index < 0) {
        throw new AppError(
          'CSV_HEADER_INVALID',
          `${file}: the header has no time-zone column "${name}" (${names['csv.timezoneColumn']}). Columns ` +
            `found: ${header.map((c) => `"${c}"`).join(', ')}; nothing was enqueued.`,
        );
      }
      column = { index, name };
    }
    const known = dryRun ? [] : await ledger.lanes(definition.id);
    const lanes = new SendLanes(ledger, definition, column, known, now);
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
          detail:
            `column "${this.#column?.name ?? ''}": "${boundedBadValue(cell)}" is not an IANA time zone; ` +
            `write it as Area/City, e.g. Europe/Berlin or America/New_York`,
          status: 'rejected',
        };
      }
      zones = [zone];
    } else {
      zones = zonesOfNumber(phone, country);
      if (zones.length === 0) {
        if (this.#defaultZone !== undefined) return this.#placeIn([this.#defaultZone]);
        const where = this.#column === undefined ? 'pass --timezone-column with' : `fill column "${this.#column.name}" with`;
        return {
          ok: false,
          reason: 'TIMEZONE_UNKNOWN',
          detail:
            `no time zone is known for ${phone} (a number of no country); ${where} the recipient's ` +
            `zone, e.g. Europe/Berlin, or give --default-timezone`,
          status: 'rejected',
        };
      }
      // The number says only the country: if its zones never share an open hour, the row would wait forever.
      if (!this.#opensIn(zones)) {
        if (this.#defaultZone !== undefined) return this.#placeIn([this.#defaultZone]);
        return {
          ok: false,
          reason: 'WINDOW_NEVER_OPEN',
          detail: neverOpenDetail(phone, zones, this.#window, this.#column?.name),
          status: 'skipped',
        };
      }
    }
    return this.#placeIn(zones);
  }

  #placeIn(zones: readonly string[]): Placement {
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

  #opensIn(zones: readonly string[]): boolean {
    const key = zones.join('&');
    let opens = this.#opens.get(key);
    if (opens === undefined) {
      opens = nextOpening(this.#window, zones, this.#startsAt, NEVER_OPEN_HORIZON_MS) !== undefined;
      this.#opens.set(key, opens);
    }
    return opens;
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

/** Short: it is stored on every such row. */
function neverOpenDetail(phone: string, zones: readonly string[], window: SendWindow, column: string | undefined): string {
  const span = zones.length > 2 ? `${zones[0] ?? ''} … ${zones[zones.length - 1] ?? ''}` : zones.join(' and ');
  const fix = column === undefined ? '--timezone-column' : `column "${column}" (--timezone-column)`;
  return (
    `${phone} may be in any of ${zones.length} time zones (${span}), and the window ` +
    `${describeWindow(window)} is never open in all of them at once; ` +
    `give its zone in ${fix}, pass --default-timezone ZONE, or widen --window`
  );
}
