import type { CountryCode } from 'libphonenumber-js';
import { AppError } from '../../errors/app-error.js';
import { openCsv, type CsvRecord } from '../../csv/csv-records.js';
import { campaignMessage, describeMessage, type CampaignDefinition, type CampaignStatus } from '../campaign.js';
import { resolveColumns, textColumns } from './column-mapping.js';
import type { AlreadySent, IngestedRow, IngestLedger, OptOutSource } from '../ledger.js';
import type { RowStatus } from '../campaign.js';
import { checkContinuedFile, type KeptRows } from './continued-file.js';
import { messageFingerprint, textMessageFingerprint } from './message-fingerprint.js';
import { PhoneRowIndex } from './phone-row-index.js';
import type { RejectionReason } from '../rejection-reasons.js';
import { checkRow, checkTextRow, type RowVerdict } from './row-check.js';
import { SendLanes } from './send-lanes.js';
import type { SendEstimate } from './send-estimate.js';
import type { MessagingLimitCheck } from './messaging-limit-check.js';

/**
 * Rows per ledger write, and chunks written at once. Two in flight keep Redis and this
 * process busy together; small chunks keep what is alive across those waits small, so less
 * is promoted to the old heap. (Measured with `npm run bench` when each chunk also wrote its
 * jobs, 100,000 rows, 5 runs: 1,000 × 1 → 0.77× the bare loop; 250 × 2 → 1.10×.)
 */
const DEFAULT_CHUNK_SIZE = 250;
const MAX_CHUNKS_IN_FLIGHT = 2;

export interface ProduceSummary {
  id: string;
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
  /** Set when reading stopped early (Ctrl-C, SIGTERM): the last row read. The campaign is paused. */
  interruptedAtRow: number | undefined;
  /** With a send window: rows to send per lane (the time zones they wait for), in lane order. */
  lanes: { zones: string[]; rows: number }[];
}

/** What `campaign send` reports: the summary, where the refused rows went, and when it would send. */
export interface SendOutcome extends ProduceSummary {
  dryRun: boolean;
  estimate: SendEstimate;
  /** Where rejected and skipped rows were written (`row,phone,reason`); undefined when none. */
  rejectsFile: string | undefined;
  /** The number's messaging limit against this campaign (template campaigns; a text goes only to open windows). */
  messagingLimit?: MessagingLimitCheck;
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
  /** `--allow-repeat`: no ALREADY_SENT check for this campaign. */
  allowRepeat?: boolean;
  /**
   * Aborted by Ctrl-C or SIGTERM: reading stops, what was read is kept (every row read is
   * recorded and queued), and the campaign pauses with "ingest interrupted at row N".
   */
  signal?: AbortSignal;
}

/** What the producer writes to: the ledger only. Jobs are made by the workers' feeder, as the number drains. */
export interface ProducerDeps {
  ledger: IngestLedger;
}

/**
 * Streams a CSV into a campaign: every record gets a ledger entry (queued, rejected or
 * skipped), and queued rows join the campaign's backlog. The header, the mapping and the presence of data rows
 * are checked before anything is written, so a file that cannot work leaves no campaign
 * behind. Sending into an existing campaign (`--campaign ID`) re-reads the file: rows already
 * there keep their state (none is sent twice), rows rejected before take the new verdict,
 * and an interrupted ingest is completed.
 */
export async function produceCampaign(deps: ProducerDeps, input: ProduceInput): Promise<ProduceSummary> {
  const { file } = input;
  const chunkSize = input.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const source = await openCsv(file, { delimiter: input.delimiter });
  try {
    const definition = input.define(source.header);
    const message = campaignMessage(definition);
    const mapping = resolveColumns(source.header, message.kind === 'text' ? textColumns(message.text) : message.plan, definition.source.phoneColumn, file);
    const defaultCountry = definition.source.defaultCountry as CountryCode | undefined;
    const { fixWhitespace } = definition.source;
    const check: (fields: readonly string[]) => RowVerdict =
      message.kind === 'text'
        ? (fields) => checkTextRow(fields, { text: message.text, mapping, defaultCountry, fixWhitespace })
        : (fields) => checkRow(fields, { plan: message.plan, mapping, defaultCountry, fixWhitespace });
    const fingerprintOf = (to: string, values: readonly string[], headerLink: string | undefined): string =>
      message.kind === 'text' ? textMessageFingerprint(message.text, to, values) : messageFingerprint(message.plan, to, values, headerLink);
    const records = readRecords(source.records, file)[Symbol.asyncIterator]();
    const first = await records.next();
    if (first.done === true) {
      throw new AppError('CSV_NO_ROWS', `${file} has a header but no data rows: nothing to send. Check that you exported the right sheet; nothing was created.`);
    }
    const dryRun = input.dryRun === true;
    /** First row of each number: a later row with the same number is skipped, never sent twice. */
    const firstRowOf = new PhoneRowIndex(source.estimatedRows);
    // A dry run reads the campaign too: its answer must be the one the real send would give.
    const existing = await deps.ledger.getCampaign(definition.id);
    const kept =
      existing === undefined
        ? undefined
        : await continuedRows(deps.ledger, await verifySameCampaign(deps.ledger, existing, definition), {
            file,
            delimiter: source.delimiter,
            recipientOf: (fields) => {
              const verdict = check(fields);
              return verdict.ok ? verdict.to : verdict.phone;
            },
            recipients: firstRowOf,
            signal: input.signal,
          });
    input.onStart?.({ estimatedRows: source.estimatedRows, continuing: existing !== undefined });
    if (!dryRun && existing === undefined) await deps.ledger.createCampaign(definition);
    if (!dryRun && input.allowRepeat === true) await deps.ledger.allowRepeat(definition.id);
    // Continuing an interrupted ingest: lift the pause it left (its parked rows are in the backlog).
    if (!dryRun && existing !== undefined) await deps.ledger.liftIngestPause(definition.id);

    const summary: ProduceSummary = {
      id: definition.id,
      rows: 0,
      valid: 0,
      queued: 0,
      rejected: 0,
      skipped: 0,
      byReason: {},
      delimiter: source.delimiter,
      reopened: 0,
      kept: kept?.count ?? 0,
      keptByStatus: { ...kept?.byStatus },
      schedule: { startsAt: (existing ?? definition).startsAt, expiresAt: (existing ?? definition).expiresAt },
      optedOutBy: {},
      interruptedAtRow: undefined,
      lanes: [],
    };
    // A send window: each row joins the lane of its recipient's time zones.
    const { window } = definition;
    const lanes = window === undefined ? undefined : await SendLanes.open(deps.ledger, { ...definition, window }, source.header, file, dryRun);
    let chunk = newChunk();
    // Chunks are written while the next ones are parsed; their failures surface when awaited.
    const inFlight: Promise<void>[] = [];

    const count = (reason: RejectionReason, status: 'rejected' | 'skipped') => {
      summary[status]++;
      summary.byReason[reason] = (summary.byReason[reason] ?? 0) + 1;
    };
    /**
     * A text reaches only users who wrote to the number in the last 24 hours (reference §1.3;
     * Meta answers 131047 otherwise): rows of the chunk whose recipient has no open window
     * are skipped as WINDOW_CLOSED. One ledger call per chunk, never one per row; a dry run
     * asks too, so its counts are the real ones.
     */
    const skipClosedWindows = async (pending: Chunk): Promise<void> => {
      const asked = pending.rows.flatMap((r, i) => (r.status === 'queued' ? [i] : []));
      if (asked.length === 0) return;
      const open = await deps.ledger.serviceWindowsOpen(definition.phoneNumberId, asked.map((i) => pending.rows[i]?.phone ?? ''));
      asked.forEach((index, k) => {
        const r = pending.rows[index];
        if (open[k] === true || r?.status !== 'queued') return;
        const where = pending.where.get(r.row);
        const detail = `line ${where?.line ?? '?'}: ${WINDOW_CLOSED_DETAIL}`;
        pending.rows[index] = { row: r.row, phone: r.phone, status: 'skipped', errorCode: 'WINDOW_CLOSED', errorDetail: detail };
        pending.where.delete(r.row);
        pending.toSend--;
        summary.valid--;
        count('WINDOW_CLOSED', 'skipped');
        if (r.lane !== undefined) lanes?.release(r.lane);
        input.onRefused?.({ row: r.row, line: where?.line ?? 0, phone: r.phone, reason: 'WINDOW_CLOSED', detail });
      });
    };
    /** Rows this number already sent the same message to (a re-run, another campaign): skipped, not queued. */
    const skipAlreadySent = (pending: Chunk, already: readonly AlreadySent[]): void => {
      for (const { row, detail } of already) {
        const where = pending.where.get(row);
        if (where?.lane !== undefined) lanes?.release(where.lane);
        summary.valid--;
        count('ALREADY_SENT', 'skipped');
        input.onRefused?.({ row, line: where?.line ?? 0, phone: where?.phone ?? '', reason: 'ALREADY_SENT', detail: `line ${where?.line ?? '?'}: ${detail}` });
      }
    };
    const flush = async (pending: Chunk): Promise<void> => {
      if (message.kind === 'text') await skipClosedWindows(pending);
      if (dryRun) {
        // The guard is read, not written: the rows the real send would skip as ALREADY_SENT.
        const toSend = pending.rows.flatMap((r) => (r.status === 'queued' ? [{ row: r.row, fingerprint: r.message.fingerprint }] : []));
        const already = input.allowRepeat === true ? [] : await deps.ledger.priorSends(definition.id, definition.phoneNumberId, toSend);
        skipAlreadySent(pending, already);
        summary.queued += toSend.length - already.length;
      } else {
        if (lanes !== undefined) await lanes.recordNew();
        const result = await deps.ledger.recordIngested(definition.id, definition.phoneNumberId, pending.rows);
        skipAlreadySent(pending, result.alreadySent);
        summary.reopened += result.reopened;
        summary.queued += result.queued.length;
      }
      input.onProgress?.(summary.rows);
    };
    const dispatch = async (): Promise<void> => {
      const pending = flush(chunk);
      pending.catch(() => undefined); // awaited below, in order
      inFlight.push(pending);
      chunk = newChunk();
      if (inFlight.length >= MAX_CHUNKS_IN_FLIGHT) await inFlight.shift();
    };
    const refuse = (row: number, line: number, phone: string, reason: RejectionReason, detail: string, status: 'rejected' | 'skipped') => {
      count(reason, status);
      const located = `line ${line}: ${detail}`;
      chunk.rows.push({ row, phone, status, errorCode: reason, errorDetail: located });
      input.onRefused?.({ row, line, phone, reason, detail: located });
    };

    try {
      let next: IteratorResult<CsvRecord> = first;
      while (next.done !== true) {
        const record = next.value;
        const row = ++summary.rows;
        if (kept?.has(row) === true) {
          // Already in the campaign with the same recipient: it keeps its state.
        } else if (record.kind === 'malformed') {
          refuse(row, record.line, '', record.reason, record.problem, 'rejected');
        } else {
          const verdict = check(record.fields);
          if (!verdict.ok) {
            refuse(row, record.line, verdict.phone, verdict.reason, verdict.detail, 'rejected');
          } else if (firstRowOf.get(verdict.to) !== undefined) {
            const detail = `same number as row ${firstRowOf.get(verdict.to) ?? '?'}, which is the one sent`;
            refuse(row, record.line, verdict.to, 'DUPLICATE_PHONE', detail, 'skipped');
          } else if (input.optedOut?.has(verdict.to) === true) {
            const origin = optOutOrigin(input.optedOut.get(verdict.to));
            summary.optedOutBy[origin] = (summary.optedOutBy[origin] ?? 0) + 1;
            refuse(row, record.line, verdict.to, 'OPTED_OUT', optedOutDetail(input.optedOut.get(verdict.to), message.kind), 'skipped');
          } else {
            const placed = lanes?.place(record.fields, verdict.to, verdict.country);
            if (placed !== undefined && !placed.ok) {
              refuse(row, record.line, verdict.to, placed.reason, placed.detail, placed.status);
            } else {
              firstRowOf.setIfAbsent(verdict.to, row);
              summary.valid++;
              const fingerprint = fingerprintOf(verdict.to, verdict.values, verdict.headerLink);
              chunk.rows.push({
                row,
                phone: verdict.to,
                status: 'queued',
                message: { values: verdict.values, headerLink: verdict.headerLink, fingerprint },
                ...(placed === undefined ? {} : { lane: placed.lane }),
              });
              chunk.where.set(row, { line: record.line, phone: verdict.to, ...(placed === undefined ? {} : { lane: placed.lane }) });
              chunk.toSend++;
            }
          }
        }
        if (chunk.rows.length >= chunkSize) await dispatch();
        if (input.signal?.aborted === true) {
          summary.interruptedAtRow = row;
          break;
        }
        next = await records.next();
      }
      await dispatch();
      for (const pending of inFlight) await pending;
    } catch (error) {
      // A read or write failure part-way: the campaign must not stay `ingesting` and half-sent
      // with nobody told. It pauses like an interruption, and `send --campaign ID` continues it.
      if (!dryRun) {
        const code = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
        await deps.ledger.markIngestInterrupted(definition.id, `ingest stopped at row ${summary.rows} (${code})`).catch(() => undefined);
      }
      throw error;
    }
    summary.lanes = lanes?.rowsPerLane() ?? [];
    if (dryRun) return summary;
    if (summary.interruptedAtRow !== undefined) {
      await deps.ledger.markIngestInterrupted(definition.id, `ingest interrupted at row ${summary.interruptedAtRow}`);
    } else {
      await deps.ledger.finishIngest(definition.id);
    }
    return summary;
  } finally {
    source.close();
  }
}

interface Chunk {
  rows: IngestedRow[];
  /** Rows of the chunk that passed every check. */
  toSend: number;
  /** Line, recipient and lane of each row to send, for the rejects file and the plan if it is skipped. */
  where: Map<number, { line: number; phone: string; lane?: number }>;
}

function newChunk(): Chunk {
  return { rows: [], toSend: 0, where: new Map() };
}

/** Short: it is stored on every such row, and most rows of a large text campaign may be such rows. */
const WINDOW_CLOSED_DETAIL = 'the recipient has not written to this number in the last 24 hours (no open window: Meta would answer 131047)';

/** Where an opt-out came from, as the summary counts them: Meta's answer 131050 unless the user or an operator said it. */
export type OptOutOrigin = '131050' | 'keyword' | 'user_preferences' | 'operator';

function optOutOrigin(source: OptOutSource | undefined): OptOutOrigin {
  return source?.via ?? '131050';
}

function optedOutDetail(source: OptOutSource | undefined, kind: 'template' | 'text'): string {
  const day = source === undefined ? '' : new Date(source.at).toISOString().slice(0, 10);
  const learnt =
    source === undefined || source.at === 0
      ? ''
      : source.via === 'keyword'
        ? ` (they answered with an opt-out keyword on ${day})`
        : source.via === 'user_preferences'
          ? ` (they stopped marketing messages in WhatsApp on ${day})`
          : source.via === 'operator'
            ? ` (added by \`campaign optouts add\` on ${day})`
          : ` (Meta answered 131050 to campaign ${source.campaignId} row ${source.row} on ${day})`;
  const what = kind === 'text' ? 'a text campaign (its words could be marketing, and an opt-out keyword itself opens a 24-hour window)' : 'a MARKETING template';
  return `the recipient stopped marketing messages from this business${learnt}; this is ${what}, so it is not sent`;
}

/** Anything the CSV reader still throws (an I/O error mid-file) becomes an AppError saying where. */
async function* readRecords(records: AsyncIterable<CsvRecord>, file: string): AsyncIterable<CsvRecord> {
  let line = 1;
  try {
    for await (const record of records) {
      line = record.line;
      yield record;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError(
      'CSV_UNREADABLE',
      `${file}: reading stopped after line ${line}: ${(error as Error).message}. Rows before it are in the campaign; fix the file and send it again with --campaign to add the rest.`,
      { cause: error },
    );
  }
}

/**
 * Sending into an existing campaign: it must send the same thing (template, number, columns)
 * and must not be cancelled (a cancelled campaign stays cancelled).
 */
async function verifySameCampaign(ledger: IngestLedger, existing: CampaignDefinition, definition: CampaignDefinition): Promise<CampaignStatus | undefined> {
  const same = (d: CampaignDefinition) =>
    JSON.stringify([d.phoneNumberId, d.plan ?? null, d.text ?? null, d.source.phoneColumn, d.window ?? null, d.source.timezoneColumn ?? null]);
  if (same(existing) !== same(definition)) {
    const sent = campaignMessage(existing);
    const columns = sent.kind === 'text' ? sent.text.columns : sent.plan.slots.map((s) => s.column);
    throw new AppError(
      'CAMPAIGN_MISMATCH',
      `Campaign ${definition.id} already exists with ${describeMessage(sent)}${sent.kind === 'text' && sent.text.previewUrl ? ' (--preview-url)' : ''} ` +
        `and columns ${columns.join(',')}; use the same options, or a new campaign ID.`,
    );
  }
  const status = await ledger.status(definition.id);
  if (status?.purgedAt !== undefined) {
    throw new AppError(
      'CAMPAIGN_PURGED',
      `Campaign ${definition.id} was purged (its rows are gone, so rows sent before could not be told apart); send the file under a new --campaign ID.`,
    );
  }
  if (status?.state === 'cancelled') {
    throw new AppError(
      'CAMPAIGN_STATE_CONFLICT',
      `Campaign ${definition.id} is cancelled and stays cancelled. To send its unsent rows, send the file under a new --campaign ID: ` +
        'recipients this number already sent the same message to within DUPLICATE_WINDOW_HOURS are skipped as ALREADY_SENT.',
    );
  }
  return status;
}

/** The rows of the campaign this run keeps (checkContinuedFile), from a second read of the file. */
async function continuedRows(
  ledger: IngestLedger,
  status: CampaignStatus | undefined,
  input: { file: string; delimiter: string; recipientOf: (fields: readonly string[]) => string; recipients: PhoneRowIndex; signal: AbortSignal | undefined },
): Promise<KeptRows | undefined> {
  const campaignRows = status?.counts.total ?? 0;
  if (campaignRows === 0) return undefined;
  const again = await openCsv(input.file, { delimiter: input.delimiter });
  try {
    return await checkContinuedFile({ ledger, campaignId: status?.id ?? '', campaignRows, records: readRecords(again.records, input.file), ...input });
  } finally {
    again.close();
  }
}
