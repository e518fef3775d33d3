import type { CsvRecord } from '../../csv/csv-records.js';
import { AppError } from '../../errors/app-error.js';
import { REDIS_FULL_ADVICE, isRedisOutOfMemory } from '../../errors/redis-errors.js';
import type { CampaignDefinition } from '../campaign.js';
import type { AlreadySent, IngestLedger } from '../ledger.js';
import type { RejectionReason } from '../rejection-reasons.js';
import type { KeptRows } from './continued-file.js';
import { optedOutDetail, optOutOrigin } from './opted-out.js';
import type { PhoneRowIndex } from './phone-row-index.js';
import type { ProduceInput, ProduceSummary } from './produce-types.js';
import type { RowVerdict } from './row-check.js';
import type { SendLanes } from '../feed/send-lanes.js';
import { MARKETING_US_PAUSED_DETAIL, skipsForUsMarketing } from './us-marketing.js';
import { marketingCapDetail } from '../marketing-cap-wait.js';
import { rowMedia, type CampaignMedia } from '../media/campaign-media.js';
import { planOfRow } from '../row-plan.js';
import { newChunk, queuedLinks, withClickToken, type Chunk, type RowPlace } from './ingest-chunk.js';

/**
 * Rows per ledger write, and chunks written at once. Two in flight keep Redis and this
 * process busy together; small chunks keep what is alive across those waits small, so less
 * is promoted to the old heap. (Measured with `npm run bench` when each chunk also wrote its
 * jobs, 100,000 rows, 5 runs: 1,000 × 1 → 0.77× the bare loop; 250 × 2 → 1.10×.)
 */
const DEFAULT_CHUNK_SIZE = 250;
const MAX_CHUNKS_IN_FLIGHT = 2;

/** Short: it is stored on every such row, and most rows of a large text campaign may be such rows. */
const NO_CONSENT_DETAIL =
  'no opt-in on record for the recipient in this business portfolio (--require-consent; `campaign consent show PHONE`)';
const WINDOW_CLOSED_DETAIL = 'the recipient has not written to this number in the last 24 hours (no open window: Meta would answer 131047)';

/** How each row of one file is checked, and the fingerprint of the message it would get. */
export interface RowCheck {
  kind: 'template' | 'text';
  check: (fields: readonly string[]) => RowVerdict;
  fingerprintOf: (to: string, values: readonly string[], headerLink: string | undefined) => string;
}

/** The campaign a run writes into, as produceCampaign opened it. */
export interface IngestTarget {
  definition: CampaignDefinition;
  rows: RowCheck;
  /** With a send window: the lanes rows are placed in. */
  lanes: SendLanes | undefined;
  /** Media sent by ID: each row's media is checked (and uploaded) before the row is queued. */
  media?: CampaignMedia | undefined;
  /** The campaign as it already was (a continued send); undefined for a new one. */
  existing: CampaignDefinition | undefined;
  /** Rows a continued campaign keeps as they are. */
  kept: KeptRows | undefined;
  /** First row of each number: a later row with the same number is skipped, never sent twice. */
  firstRowOf: PhoneRowIndex;
  delimiter: string;
}

/**
 * One pass over a file's records into a campaign: each row checked and counted, and written
 * to the ledger in chunks while the next ones are read (a dry run only asks what would be
 * skipped). `summary` counts as it goes.
 */
export class IngestRun {
  readonly summary: ProduceSummary;
  readonly #ledger: IngestLedger;
  readonly #input: ProduceInput;
  readonly #target: IngestTarget;
  readonly #dryRun: boolean;
  readonly #chunkSize: number;
  #chunk = newChunk();
  /** Chunks are written while the next ones are parsed; their failures surface when awaited. */
  readonly #inFlight: Promise<void>[] = [];

  constructor(ledger: IngestLedger, input: ProduceInput, target: IngestTarget) {
    this.#ledger = ledger;
    this.#input = input;
    this.#target = target;
    this.#dryRun = input.dryRun === true;
    this.#chunkSize = input.chunkSize ?? DEFAULT_CHUNK_SIZE;
    const { definition, existing, kept } = target;
    this.summary = {
      id: definition.id,
      name: (existing ?? definition).name,
      rows: 0,
      valid: 0,
      queued: 0,
      rejected: 0,
      skipped: 0,
      byReason: {},
      delimiter: target.delimiter,
      reopened: 0,
      kept: kept?.count ?? 0,
      keptByStatus: { ...kept?.byStatus },
      schedule: { startsAt: (existing ?? definition).startsAt, expiresAt: (existing ?? definition).expiresAt },
      optedOutBy: {},
      marketingCapUntil: undefined,
      interruptedAtRow: undefined,
      lanes: [],
      byCountry: {},
      byLanguage: {},
      frequencyCapped: 0,
    };
  }

  /**
   * Reads `first` and every record after it, until the end or an abort (the row it stopped
   * at is kept). A read or write failure part-way must not leave the campaign `ingesting`
   * and half-sent with nobody told: it pauses like an interruption, and `send --campaign ID`
   * continues it.
   */
  async readAll(first: IteratorResult<CsvRecord>, records: AsyncIterator<CsvRecord>): Promise<void> {
    try {
      let next = first;
      while (next.done !== true) {
        const row = ++this.summary.rows;
        const waiting = this.#read(next.value, row);
        if (waiting !== undefined) await waiting;
        if (this.#chunk.rows.length >= this.#chunkSize) await this.#dispatch();
        if (this.#input.signal?.aborted === true) {
          this.summary.interruptedAtRow = row;
          break;
        }
        next = await records.next();
      }
      await this.#dispatch();
      for (const pending of this.#inFlight) await pending;
    } catch (error) {
      if (!this.#dryRun) {
        const code = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
        await this.#ledger
          .markIngestInterrupted(this.summary.id, `ingest stopped at row ${this.summary.rows} (${code})`)
          .catch(() => undefined);
      }
      throw error;
    }
  }

  /** Every row is read: the campaign can complete (or stays paused where it was interrupted). */
  async finish(): Promise<ProduceSummary> {
    this.summary.lanes = this.#target.lanes?.rowsPerLane() ?? [];
    if (this.#dryRun) return this.summary;
    if (this.summary.interruptedAtRow !== undefined) {
      await this.#ledger.markIngestInterrupted(this.summary.id, `ingest interrupted at row ${this.summary.interruptedAtRow}`);
    } else {
      await this.#ledger.finishIngest(this.summary.id);
    }
    return this.summary;
  }

  /** One record: kept, refused (rejected or skipped, with why) or gathered to send. */
  #read(record: CsvRecord, row: number): Promise<void> | undefined {
    const { kept, firstRowOf, lanes, rows } = this.#target;
    // Already in the campaign with the same recipient: it keeps its state.
    if (kept?.has(row) === true) return;
    if (record.kind === 'malformed') {
      this.#refuse(row, record.line, '', record.reason, record.problem, 'rejected');
      return undefined;
    }
    const verdict = rows.check(record.fields);
    if (!verdict.ok) {
      this.#refuse(row, record.line, verdict.phone, verdict.reason, verdict.detail, verdict.skip === true ? 'skipped' : 'rejected');
      return undefined;
    }
    const sent = firstRowOf.get(verdict.to);
    if (sent !== undefined) {
      this.#refuse(row, record.line, verdict.to, 'DUPLICATE_PHONE', `same number as row ${sent}, which is the one sent`, 'skipped');
      return undefined;
    }
    const optOut = this.#input.optedOut;
    if (optOut?.has(verdict.to) === true) {
      const origin = optOutOrigin(optOut.get(verdict.to));
      this.summary.optedOutBy[origin] = (this.summary.optedOutBy[origin] ?? 0) + 1;
      this.#refuse(row, record.line, verdict.to, 'OPTED_OUT', optedOutDetail(optOut.get(verdict.to), rows.kind), 'skipped');
      return undefined;
    }
    const capUntil = this.#input.marketingCapped?.get(verdict.to);
    if (capUntil !== undefined) {
      this.summary.marketingCapUntil = Math.max(capUntil, this.summary.marketingCapUntil ?? 0);
      this.#refuse(row, record.line, verdict.to, 'MARKETING_CAP_WAIT', marketingCapDetail(capUntil), 'skipped');
      return undefined;
    }
    if (skipsForUsMarketing(this.#input.usMarketingPaused === true, verdict.country)) {
      this.#refuse(row, record.line, verdict.to, 'MARKETING_US_PAUSED', MARKETING_US_PAUSED_DETAIL, 'skipped');
      return undefined;
    }
    const placed = lanes?.place(record.fields, verdict.to, verdict.country);
    if (placed !== undefined && !placed.ok) {
      this.#refuse(row, record.line, verdict.to, placed.reason, placed.detail, placed.status);
      return undefined;
    }
    const media = this.#target.media;
    if (media === undefined || rows.kind === 'text') {
      this.#gather(row, record.line, verdict, placed?.lane);
      return undefined;
    }
    return this.#gatherWithMedia(media, row, record.line, verdict, placed?.lane);
  }

  /**
   * A row whose media must be checked first (sent by ID): each distinct media is read,
   * checked and uploaded once for the campaign, so only a row with a media not seen before
   * waits; a row whose media fails is rejected with the media's code and never queued.
   */
  async #gatherWithMedia(
    media: CampaignMedia,
    row: number,
    line: number,
    verdict: Extract<RowVerdict, { ok: true }>,
    lane: number | undefined,
  ): Promise<void> {
    const plan = planOfRow(this.#target.definition, verdict.values);
    for (const item of plan === undefined ? [] : rowMedia(plan, verdict.values, verdict.headerLink)) {
      const prepared = await media.prepare(item.source, item.format, { upload: !this.#dryRun });
      if (!prepared.ok) {
        this.#refuse(row, line, verdict.to, prepared.code, prepared.detail, 'rejected');
        return;
      }
    }
    this.#gather(row, line, verdict, lane);
  }

  /** A row that passed every check joins the chunk, to be queued. */
  #gather(row: number, line: number, verdict: Extract<RowVerdict, { ok: true }>, lane: number | undefined): void {
    this.#target.firstRowOf.setIfAbsent(verdict.to, row);
    this.summary.valid++;
    const country = verdict.country ?? '';
    this.summary.byCountry[country] = (this.summary.byCountry[country] ?? 0) + 1;
    // With a language per row, the first value is the language it is sent in.
    const language = this.#target.definition.languages === undefined ? undefined : verdict.values[0];
    if (language !== undefined) this.summary.byLanguage[language] = (this.summary.byLanguage[language] ?? 0) + 1;
    // The fingerprint is of the destination, not the token: the same message to the same recipient is a repeat whatever its token.
    const fingerprint = this.#target.rows.fingerprintOf(verdict.to, verdict.values, verdict.headerLink);
    const values = withClickToken(this.#chunk, this.#target.definition, row, verdict.values);
    this.#chunk.rows.push({
      row,
      phone: verdict.to,
      status: 'queued',
      message: { values, headerLink: verdict.headerLink, fingerprint },
      ...(lane === undefined ? {} : { lane }),
    });
    const where: RowPlace = { line, phone: verdict.to, country };
    if (lane !== undefined) where.lane = lane;
    if (language !== undefined) where.language = language;
    this.#chunk.where.set(row, where);
    this.#chunk.toSend++;
  }

  /** A gathered row that is not sent after all. */
  #uncount(country: string | undefined, language: string | undefined): void {
    this.summary.valid--;
    if (language !== undefined && (this.summary.byLanguage[language] ?? 0) > 0) this.summary.byLanguage[language]! -= 1;
    const key = country ?? '';
    if ((this.summary.byCountry[key] ?? 0) > 0) this.summary.byCountry[key] = (this.summary.byCountry[key] ?? 0) - 1;
  }

  #count(reason: RejectionReason, status: 'rejected' | 'skipped'): void {
    this.summary[status]++;
    this.summary.byReason[reason] = (this.summary.byReason[reason] ?? 0) + 1;
  }

  #refuse(row: number, line: number, phone: string, reason: RejectionReason, detail: string, status: 'rejected' | 'skipped'): void {
    this.#count(reason, status);
    const located = `line ${line}: ${detail}`;
    this.#chunk.rows.push({ row, phone, status, errorCode: reason, errorDetail: located });
    this.#input.onRefused?.({ row, line, phone, reason, detail: located });
  }

  async #dispatch(): Promise<void> {
    const pending = this.#flush(this.#chunk);
    pending.catch(() => undefined); // awaited below, in order
    this.#inFlight.push(pending);
    this.#chunk = newChunk();
    if (this.#inFlight.length >= MAX_CHUNKS_IN_FLIGHT) await this.#inFlight.shift();
  }

  async #flush(pending: Chunk): Promise<void> {
    const { definition, lanes } = this.#target;
    if (this.#target.rows.kind === 'text') await this.#skipClosedWindows(pending);
    const { consented, frequencyCapped } = this.#input;
    if (consented !== undefined) await this.#skipUnlessAsked(pending, consented, 'NO_CONSENT', NO_CONSENT_DETAIL);
    if (frequencyCapped !== undefined) this.summary.frequencyCapped += await this.#countCapped(pending, frequencyCapped);
    if (this.#dryRun) {
      // The guard is read, not written: the rows the real send would skip as ALREADY_SENT.
      const toSend = pending.rows.flatMap((r) => (r.status === 'queued' ? [{ row: r.row, fingerprint: r.message.fingerprint }] : []));
      const already =
        this.#input.allowRepeat === true ? [] : await this.#ledger.priorSends(definition.id, definition.phoneNumberId, toSend);
      this.#skipAlreadySent(pending, already);
      this.summary.queued += toSend.length - already.length;
    } else {
      if (lanes !== undefined) await lanes.recordNew();
      await this.#recordLinks(pending);
      const result = await this.#ledger.recordIngested(definition.id, definition.phoneNumberId, pending.rows).catch((error: unknown) => {
        throw this.#redisFull(error, pending.rows[0]?.row);
      });
      this.#skipAlreadySent(pending, result.alreadySent);
      this.summary.reopened += result.reopened;
      this.summary.queued += result.queued.length;
    }
    this.#input.onProgress?.(this.summary.rows);
  }

  /** The chunk's links of rows still to be queued, before the rows are: a token a recipient can get always resolves. */
  async #recordLinks(pending: Chunk): Promise<void> {
    const links = queuedLinks(pending);
    if (this.#input.clickLinks === undefined || links.length === 0) return;
    const { id, phoneNumberId } = this.#target.definition;
    await this.#input.clickLinks.record(phoneNumberId, id, links).catch((error: unknown) => {
      throw this.#redisFull(error, pending.rows[0]?.row);
    });
  }

  /**
   * Redis full stops the read where it is: the ledger's scripts are refused before they start
   * (their `#!lua` flags), so the chunk is either recorded whole or not at all, and a
   * continued send adds the rest once there is room.
   */
  #redisFull(error: unknown, row: number | undefined): unknown {
    if (!isRedisOutOfMemory(error)) return error;
    const { id } = this.#target.definition;
    const { file, names } = this.#input;
    return new AppError(
      'REDIS_FULL',
      `Redis is out of memory (maxmemory reached): campaign ${id} stopped reading ${file} at row ${row ?? '?'}; the rows before ` +
        `it are in the campaign, each whole. ${REDIS_FULL_ADVICE}; then the same send with ${names.campaignId} ${id} adds the rest.`,
      { cause: error },
    );
  }

  /**
   * A text reaches only users who wrote to the number in the last 24 hours (reference §1.3;
   * Meta answers 131047 otherwise): rows of the chunk whose recipient has no open window
   * are skipped as WINDOW_CLOSED. One ledger call per chunk, never one per row; a dry run
   * asks too, so its counts are the real ones.
   */
  async #skipClosedWindows(pending: Chunk): Promise<void> {
    const { phoneNumberId } = this.#target.definition;
    await this.#skipUnlessAsked(
      pending,
      (phones) => this.#ledger.serviceWindowsOpen(phoneNumberId, phones),
      'WINDOW_CLOSED',
      WINDOW_CLOSED_DETAIL,
    );
  }

  /** Rows of the chunk to send for which `ask` answers false are skipped as `reason`: one call per chunk, a dry run's too. */
  async #skipUnlessAsked(
    pending: Chunk,
    ask: (phones: readonly string[]) => Promise<boolean[]>,
    reason: 'WINDOW_CLOSED' | 'NO_CONSENT',
    why: string,
  ): Promise<void> {
    const asked = pending.rows.flatMap((r, i) => (r.status === 'queued' ? [i] : []));
    if (asked.length === 0) return;
    const yes = await ask(asked.map((i) => pending.rows[i]?.phone ?? ''));
    asked.forEach((index, k) => {
      const r = pending.rows[index];
      if (yes[k] === true || r?.status !== 'queued') return;
      const where = pending.where.get(r.row);
      const detail = `line ${where?.line ?? '?'}: ${why}`;
      pending.rows[index] = { row: r.row, phone: r.phone, status: 'skipped', errorCode: reason, errorDetail: detail };
      pending.where.delete(r.row);
      pending.toSend--;
      this.#uncount(where?.country, where?.language);
      this.#count(reason, 'skipped');
      if (r.lane !== undefined) this.#target.lanes?.release(r.lane);
      this.#input.onRefused?.({ row: r.row, line: where?.line ?? 0, phone: r.phone, reason, detail });
    });
  }

  /** Rows of the chunk to send whose recipient is over a FREQUENCY_CAPS cap now: counted for the plan, left to their claim. */
  async #countCapped(pending: Chunk, capped: (phones: readonly string[]) => Promise<boolean[]>): Promise<number> {
    const phones = pending.rows.flatMap((r) => (r.status === 'queued' ? [r.phone] : []));
    if (phones.length === 0) return 0;
    return (await capped(phones)).filter((yes) => yes).length;
  }

  /** Rows this number already sent the same message to (a re-run, another campaign): skipped, not queued. */
  #skipAlreadySent(pending: Chunk, already: readonly AlreadySent[]): void {
    for (const { row, detail } of already) {
      const where = pending.where.get(row);
      if (where?.lane !== undefined) this.#target.lanes?.release(where.lane);
      this.#uncount(where?.country, where?.language);
      this.#count('ALREADY_SENT', 'skipped');
      this.#input.onRefused?.({
        row,
        line: where?.line ?? 0,
        phone: where?.phone ?? '',
        reason: 'ALREADY_SENT',
        detail: `line ${where?.line ?? '?'}: ${detail}`,
      });
    }
  }
}
