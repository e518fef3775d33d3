import { AppError } from '../errors/app-error.js';
import { openCsv } from '../csv/csv-records.js';
import type { CampaignDefinition } from './campaign.js';
import { resolveColumns } from './column-mapping.js';
import type { CampaignLedger, IngestedRow } from './ledger.js';
import type { RejectionReason } from './rejection-reasons.js';
import { checkRow } from './row-check.js';
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
  /** Rows given a job by this run (a row already sent or queued by an earlier run is not counted again). */
  queued: number;
  rejected: number;
  skipped: number;
  byReason: Partial<Record<RejectionReason, number>>;
}

export interface ProduceInput {
  file: string;
  definition: CampaignDefinition;
  delimiter?: string | undefined;
  /** Rows per ledger write and addBulk call (default 250). */
  chunkSize?: number;
  onProgress?: (rowsRead: number) => void;
}

/**
 * Streams a CSV into a campaign: every row gets a ledger entry (queued, rejected or skipped)
 * and every queued row a job. The header is checked before anything is written, so a file
 * that cannot work leaves no campaign behind.
 */
export async function produceCampaign(
  deps: { ledger: CampaignLedger; queue: SendJobQueue },
  input: ProduceInput,
): Promise<ProduceSummary> {
  const { definition, file } = input;
  const chunkSize = input.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const source = await openCsv(file, { delimiter: input.delimiter });
  try {
    const mapping = resolveColumns(source.header, definition.source, file);
    const isNew = await createOrVerify(deps.ledger, definition);

    const summary: ProduceSummary = { id: definition.id, rows: 0, queued: 0, rejected: 0, skipped: 0, byReason: {} };
    /** First row of each number: a later row with the same number is skipped, never sent twice. */
    const firstRowOf = new Map<string, number>();
    let batch: IngestedRow[] = [];
    let jobs: SendJob[] = [];
    // Chunks are written while the next ones are parsed; their failures surface when awaited.
    const inFlight: Promise<void>[] = [];

    let flushes = 0;
    const flush = async (rows: IngestedRow[], rowJobs: SendJob[]): Promise<void> => {
      if (isNew && flushes++ > 0) {
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

    for await (const fields of readRecords(source.records, file, () => summary.rows)) {
      const row = ++summary.rows;
      const verdict = checkRow(fields, mapping);
      if (!verdict.ok) {
        summary.rejected++;
        summary.byReason[verdict.reason] = (summary.byReason[verdict.reason] ?? 0) + 1;
        batch.push({ row, phone: verdict.phone, status: 'rejected', errorCode: verdict.reason, errorDetail: verdict.detail });
      } else if (firstRowOf.has(verdict.to)) {
        summary.skipped++;
        summary.byReason.DUPLICATE_PHONE = (summary.byReason.DUPLICATE_PHONE ?? 0) + 1;
        const detail = `same number as row ${firstRowOf.get(verdict.to) ?? '?'}, which is the one sent`;
        batch.push({ row, phone: verdict.to, status: 'skipped', errorCode: 'DUPLICATE_PHONE', errorDetail: detail });
      } else {
        firstRowOf.set(verdict.to, row);
        batch.push({ row, phone: verdict.to, status: 'queued' });
        const job: SendJob = { campaignId: definition.id, row, to: verdict.to, values: verdict.values };
        if (verdict.headerLink !== undefined) job.headerLink = verdict.headerLink;
        jobs.push(job);
      }
      if (batch.length >= chunkSize) await dispatch();
    }
    await dispatch();
    for (const pending of inFlight) await pending;
    await deps.ledger.finishIngest(definition.id);
    return summary;
  } finally {
    source.close();
  }
}

/** csv-parse stops at a record it cannot parse (an unclosed quote): say where, as an AppError. */
async function* readRecords(records: AsyncIterable<string[]>, file: string, rowsRead: () => number): AsyncIterable<string[]> {
  try {
    yield* records;
  } catch (error) {
    throw new AppError(
      'CSV_UNREADABLE',
      `${file}: cannot read past data row ${rowsRead()}: ${(error as Error).message}. Rows before it are in the campaign; fix the file and send it again with --campaign to add the rest.`,
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
  const same = (d: CampaignDefinition) => JSON.stringify([d.phoneNumberId, d.template, d.source.phoneColumn, d.source.paramColumns, d.source.headerImageColumn]);
  if (same(existing) !== same(definition)) {
    throw new AppError(
      'CAMPAIGN_MISMATCH',
      `Campaign ${definition.id} already exists with template ${existing.template.name}/${existing.template.language} ` +
        `and columns ${existing.source.paramColumns.join(',')}; use the same options, or a new campaign ID.`,
    );
  }
  return false;
}
