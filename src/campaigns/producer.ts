import type { CountryCode } from 'libphonenumber-js';
import { AppError } from '../errors/app-error.js';
import { openCsv, type CsvRecord } from '../csv/csv-records.js';
import type { CampaignDefinition } from './campaign.js';
import { resolveColumns } from './column-mapping.js';
import type { CampaignLedger, IngestedRow, OptOutSource } from './ledger.js';
import type { RejectionReason } from './rejection-reasons.js';
import { checkRow, type RowRules } from './row-check.js';
import type { SendJob, SendJobQueue } from './send-job.js';

/**
 * Rows per ledger write + addBulk, and chunks written at once. Two in flight keep Redis and
 * this process busy together; small chunks keep what is alive across those waits small, so
 * less is promoted to the old heap. Measured with `npm run bench` (100,000 rows, 5 runs):
 * 1,000 × 1 → 0.77× the bare loop, 232–259 MB; 1,000 × 2 → 1.0×, 249–295 MB;
 * 500 × 2 → 1.07×, 245–265 MB; 250 × 2 → 1.10×, 224–248 MB.
 */
const DEFAULT_CHUNK_SIZE = 250;
const MAX_CHUNKS_IN_FLIGHT = 2;

export interface ProduceSummary {
  id: string;
  /** Data rows read from the file. */
  rows: number;
  /** Rows that passed every check (in a dry run: rows that would be queued). */
  valid: number;
  /** Rows given a job by this run (a row already sent or queued by an earlier run is not counted again). */
  queued: number;
  rejected: number;
  skipped: number;
  byReason: Partial<Record<RejectionReason, number>>;
  delimiter: string;
}

/** What `campaign send` reports: the summary, and where the refused rows went. */
export interface SendOutcome extends ProduceSummary {
  dryRun: boolean;
  /** Where rejected and skipped rows were written (`row,phone,reason`); undefined when none. */
  rejectsFile: string | undefined;
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
  /** Rows per ledger write and addBulk call (default 250). */
  chunkSize?: number;
  onProgress?: (rowsRead: number) => void;
  onRefused?: (refused: RefusedRow) => void;
  /**
   * Recipients not to send to (for a MARKETING template: those who stopped marketing
   * messages, Meta 131050), each with where that was learnt. Their rows are skipped.
   */
  optedOut?: ReadonlyMap<string, OptOutSource>;
}

/**
 * Streams a CSV into a campaign: every row gets a ledger entry (queued, rejected or skipped)
 * and every queued row a job. The header and the mapping are checked before anything is
 * written, so a file that cannot work leaves no campaign behind.
 */
export async function produceCampaign(
  deps: { ledger: CampaignLedger; queue: SendJobQueue },
  input: ProduceInput,
): Promise<ProduceSummary> {
  const { file } = input;
  const chunkSize = input.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const source = await openCsv(file, { delimiter: input.delimiter });
  try {
    const definition = input.define(source.header);
    const rules: RowRules = {
      plan: definition.plan,
      mapping: resolveColumns(source.header, definition.plan, definition.source.phoneColumn, file),
      defaultCountry: definition.source.defaultCountry as CountryCode | undefined,
      fixWhitespace: definition.source.fixWhitespace,
    };
    const dryRun = input.dryRun === true;
    const isNew = dryRun || (await createOrVerify(deps.ledger, definition));

    const summary: ProduceSummary = {
      id: definition.id,
      rows: 0,
      valid: 0,
      queued: 0,
      rejected: 0,
      skipped: 0,
      byReason: {},
      delimiter: source.delimiter,
    };
    /** First row of each number: a later row with the same number is skipped, never sent twice. */
    const firstRowOf = new Map<string, number>();
    let batch: IngestedRow[] = [];
    let jobs: SendJob[] = [];
    // Chunks are written while the next ones are parsed; their failures surface when awaited.
    const inFlight: Promise<void>[] = [];

    let flushes = 0;
    const flush = async (rows: IngestedRow[], rowJobs: SendJob[]): Promise<void> => {
      if (dryRun) {
        summary.queued += rowJobs.length;
      } else if (isNew && flushes++ > 0) {
        // A campaign created by this run has no earlier rows: every queued row needs its job.
        // Both writes go down one connection in this order, so a worker never sees a job
        // before its ledger row. (Not the first chunk: its ledger script may not be loaded
        // yet, and the client's EVALSHA → EVAL retry would arrive after the jobs.)
        await Promise.all([deps.ledger.recordIngested(definition.id, rows), deps.queue.enqueue(rowJobs)]);
        summary.queued += rowJobs.length;
      } else {
        const needJob = new Set(await deps.ledger.recordIngested(definition.id, rows));
        const toEnqueue = rowJobs.filter((job) => needJob.has(job.row));
        await deps.queue.enqueue(toEnqueue);
        summary.queued += toEnqueue.length;
      }
      input.onProgress?.(summary.rows);
    };
    const dispatch = async (): Promise<void> => {
      const pending = flush(batch, jobs);
      pending.catch(() => undefined); // awaited below, in order
      inFlight.push(pending);
      batch = [];
      jobs = [];
      if (inFlight.length >= MAX_CHUNKS_IN_FLIGHT) await inFlight.shift();
    };
    const refuse = (row: number, line: number, phone: string, reason: RejectionReason, detail: string, status: 'rejected' | 'skipped') => {
      summary[status]++;
      summary.byReason[reason] = (summary.byReason[reason] ?? 0) + 1;
      const located = `line ${line}: ${detail}`;
      batch.push({ row, phone, status, errorCode: reason, errorDetail: located });
      input.onRefused?.({ row, line, phone, reason, detail: located });
    };

    for await (const record of readRecords(source.records, file)) {
      const row = ++summary.rows;
      if (record.kind === 'malformed') {
        refuse(row, record.line, '', 'MALFORMED_RECORD', record.problem, 'rejected');
      } else {
        const verdict = checkRow(record.fields, rules);
        if (!verdict.ok) {
          refuse(row, record.line, verdict.phone, verdict.reason, verdict.detail, 'rejected');
        } else if (firstRowOf.has(verdict.to)) {
          const detail = `same number as row ${firstRowOf.get(verdict.to) ?? '?'}, which is the one sent`;
          refuse(row, record.line, verdict.to, 'DUPLICATE_PHONE', detail, 'skipped');
        } else if (input.optedOut?.has(verdict.to) === true) {
          refuse(row, record.line, verdict.to, 'OPTED_OUT', optedOutDetail(input.optedOut.get(verdict.to)), 'skipped');
        } else {
          firstRowOf.set(verdict.to, row);
          summary.valid++;
          batch.push({ row, phone: verdict.to, status: 'queued' });
          const job: SendJob = { campaignId: definition.id, row, to: verdict.to, values: verdict.values };
          if (verdict.headerLink !== undefined) job.headerLink = verdict.headerLink;
          jobs.push(job);
        }
      }
      if (batch.length >= chunkSize) await dispatch();
    }
    await dispatch();
    for (const pending of inFlight) await pending;
    if (!dryRun) await deps.ledger.finishIngest(definition.id);
    return summary;
  } finally {
    source.close();
  }
}

function optedOutDetail(source: OptOutSource | undefined): string {
  const learnt = source === undefined || source.at === 0 ? '' : ` (Meta answered 131050 to campaign ${source.campaignId} row ${source.row} on ${new Date(source.at).toISOString().slice(0, 10)})`;
  return `the recipient stopped marketing messages from this business${learnt}; this is a MARKETING template, so it is not sent`;
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

/** Creates the campaign, or checks that the existing one has the same definition. True if created now. */
async function createOrVerify(ledger: CampaignLedger, definition: CampaignDefinition): Promise<boolean> {
  const existing = await ledger.getCampaign(definition.id);
  if (existing === undefined) {
    await ledger.createCampaign(definition);
    return true;
  }
  const same = (d: CampaignDefinition) => JSON.stringify([d.phoneNumberId, d.plan, d.source.phoneColumn]);
  if (same(existing) !== same(definition)) {
    throw new AppError(
      'CAMPAIGN_MISMATCH',
      `Campaign ${definition.id} already exists with template ${existing.plan.name}/${existing.plan.language} ` +
        `and columns ${existing.plan.slots.map((s) => s.column).join(',')}; use the same options, or a new campaign ID.`,
    );
  }
  return false;
}
