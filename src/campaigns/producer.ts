import { AppError } from '../errors/app-error.js';
import { openCsv } from '../csv/csv-records.js';
import type { CampaignDefinition } from './campaign.js';
import { resolveColumns } from './column-mapping.js';
import type { CampaignLedger, IngestedRow } from './ledger.js';
import type { RejectionReason } from './rejection-reasons.js';
import { checkRow } from './row-check.js';
import type { SendJob, SendJobQueue } from './send-job.js';

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
  /** Rows per ledger write and addBulk call. */
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
  const chunkSize = input.chunkSize ?? 1000;
  const source = await openCsv(file, { delimiter: input.delimiter });
  try {
    const mapping = resolveColumns(source.header, definition.source, file);
    await createOrVerify(deps.ledger, definition);

    const summary: ProduceSummary = { id: definition.id, rows: 0, queued: 0, rejected: 0, skipped: 0, byReason: {} };
    /** First row of each number: a later row with the same number is skipped, never sent twice. */
    const firstRowOf = new Map<string, number>();
    let batch: IngestedRow[] = [];
    let jobs = new Map<number, SendJob>();
    // One chunk is written to Redis while the next is parsed; a failure surfaces at the next wait.
    let inFlight: Promise<void> = Promise.resolve();

    const flush = async (rows: IngestedRow[], rowJobs: Map<number, SendJob>): Promise<void> => {
      const needJob = await deps.ledger.recordIngested(definition.id, rows);
      await deps.queue.enqueue(needJob.flatMap((row) => rowJobs.get(row) ?? []));
      summary.queued += needJob.length;
      input.onProgress?.(summary.rows);
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
        jobs.set(row, job);
      }
      if (batch.length >= chunkSize) {
        await inFlight;
        inFlight = flush(batch, jobs);
        inFlight.catch(() => undefined); // awaited before the next chunk or at the end
        batch = [];
        jobs = new Map();
      }
    }
    await inFlight;
    await flush(batch, jobs);
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

async function createOrVerify(ledger: CampaignLedger, definition: CampaignDefinition): Promise<void> {
  const existing = await ledger.getCampaign(definition.id);
  if (existing === undefined) {
    await ledger.createCampaign(definition);
    return;
  }
  const same = (d: CampaignDefinition) => JSON.stringify([d.phoneNumberId, d.template, d.source.phoneColumn, d.source.paramColumns, d.source.headerImageColumn]);
  if (same(existing) !== same(definition)) {
    throw new AppError(
      'CAMPAIGN_MISMATCH',
      `Campaign ${definition.id} already exists with template ${existing.template.name}/${existing.template.language} ` +
        `and columns ${existing.source.paramColumns.join(',')}; use the same options, or a new campaign ID.`,
    );
  }
}
