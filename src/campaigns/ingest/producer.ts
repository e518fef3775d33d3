import { dirname, resolve } from 'node:path';
import type { CountryCode } from 'libphonenumber-js';
import { AppError } from '../../errors/app-error.js';
import { openCsv, type CsvRecord, type CsvSource } from '../../csv/csv-records.js';
import { campaignMessage, describeMessage, type CampaignDefinition, type CampaignStatus } from '../campaign.js';
import { resolveColumns, textColumns } from './column-mapping.js';
import type { IngestLedger } from '../ledger.js';
import { checkContinuedFile, type KeptRows } from './continued-file.js';
import { IngestRun, type RowCheck } from './ingest-run.js';
import type { ProduceInput, ProduceSummary } from './produce-types.js';
import { messageFingerprint, textMessageFingerprint } from './message-fingerprint.js';
import { PhoneRowIndex } from './phone-row-index.js';
import { checkRow, checkTextRow } from './row-check.js';
import { languageRowCheck } from './language-rows.js';
import { sendPlanSchema } from '../send-plan.js';
import type { CampaignMedia } from '../media/campaign-media.js';
import { SendLanes } from '../feed/send-lanes.js';
import type { SendEstimate } from '../feed/send-estimate.js';
import type { MessagingLimitCheck } from './messaging-limit-check.js';
import type { PlanCost } from '../../pricing/cost-estimate.js';
import type { FieldNames } from '../spec/field-names.js';

export type { OptOutOrigin } from './opted-out.js';
export type { ProduceInput, ProduceSummary, RefusedRow } from './produce-types.js';

/** What `campaign send` reports: the summary, where the refused rows went, and when it would send. */
export interface SendOutcome extends ProduceSummary {
  dryRun: boolean;
  estimate: SendEstimate;
  /** The number's own send rate (SEND_RATES, else SEND_RATE) the plan is paced at, in messages per second; 0 = unlimited. */
  sendRate: number;
  /** Where rejected and skipped rows were written (`row,phone,reason`); undefined when none. */
  rejectsFile: string | undefined;
  /** The number's messaging limit against this campaign (template campaigns; a text goes only to open windows). */
  messagingLimit?: MessagingLimitCheck;
  /** What the rows to send would cost by the rate card; null with `costReason` when no card covers them. */
  cost: PlanCost | null;
  costReason: string | null;
  /** The rate card the cost was priced with (its path); null without one. */
  rateCard: string | null;
  /** `--max-cost`: the amount, and why a real send would refuse this plan (null: within it). */
  maxCost?: { amount: number; refused: string | null };
}

/** What the producer writes to: the ledger only. Jobs are made by the workers' feeder, as the number drains. */
export interface ProducerDeps {
  ledger: IngestLedger;
  /** For a campaign that sends its media by ID: each distinct media is checked (and uploaded) before its rows are queued. */
  media?: CampaignMedia | undefined;
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
  const { names } = input;
  const source = await openCsv(file, { delimiter: input.delimiter });
  try {
    const definition = input.define(source.header);
    const rows = rowCheck(definition, source.header, file, names);
    const records = readRecords(source.records, file, names)[Symbol.asyncIterator]();
    const first = await records.next();
    if (first.done === true) {
      throw new AppError(
        'CSV_NO_ROWS',
        `${file} has a header but no data rows: nothing to send. Check that you exported the right sheet; nothing was created.`,
      );
    }
    // A send window: each row joins the lane of its recipient's time zones. Opened before the
    // campaign is, so a missing time-zone column refuses the file with nothing created.
    const { window } = definition;
    const lanes =
      window === undefined
        ? undefined
        : await SendLanes.open(deps.ledger, { ...definition, window }, source.header, file, input.dryRun === true, names);
    const opened = await openCampaign(deps.ledger, input, { definition, rows, source, names });
    const media = definition.mediaBy === 'id' ? deps.media : undefined;
    const run = new IngestRun(deps.ledger, input, { definition, rows, lanes, media, ...opened, delimiter: source.delimiter });
    await run.readAll(first, records);
    return await run.finish();
  } finally {
    source.close();
  }
}

/** How each row of this file is checked and fingerprinted, from the campaign's message and the header. */
function rowCheck(definition: CampaignDefinition, header: readonly string[], file: string, names: FieldNames): RowCheck {
  const message = campaignMessage(definition);
  const mapping = resolveColumns(
    header,
    message.kind === 'text' ? textColumns(message.text) : message.plan,
    definition.source.phoneColumn,
    file,
    names['csv.phoneColumn'],
  );
  const defaultCountry = definition.source.defaultCountry as CountryCode | undefined;
  const { fixWhitespace } = definition.source;
  if (message.kind === 'text') {
    return {
      kind: 'text',
      check: (fields) => checkTextRow(fields, { text: message.text, mapping, defaultCountry, fixWhitespace }),
      fingerprintOf: (to, values) => textMessageFingerprint(message.text, to, values),
    };
  }
  // An offer's end is checked against the time the row is read and the campaign's expiry.
  // Header files are read beside the CSV file (header-file.ts).
  const fileBase = dirname(resolve(file));
  const slotContext = {
    // Read when a row is checked: a long file's last rows are checked against the time they are read.
    get now() {
      return Date.now();
    },
    campaignExpiresAt: definition.expiresAt,
  };
  const rules = { defaultCountry, fixWhitespace, fileBase, slotContext, clickSlot: definition.clicks?.slot };
  const phone = { name: definition.source.phoneColumn, option: names['csv.phoneColumn'], file };
  const languages = definition.languages;
  return {
    kind: 'template',
    check:
      languages === undefined
        ? (fields) => checkRow(fields, { plan: message.plan, mapping, ...rules })
        : languageRowCheck(languages, message.plan, header, phone, rules),
    fingerprintOf: (to, values, headerLink) => messageFingerprint(message.plan, to, values, headerLink),
  };
}

/**
 * The campaign this run writes into, before a row is read: an existing one is checked (same
 * message, not cancelled or purged) and the rows it keeps are read from a second pass over
 * the file; a new one is created. A dry run reads the campaign too (its answer must be the
 * one the real send would give) and writes nothing.
 */
async function openCampaign(
  ledger: IngestLedger,
  input: ProduceInput,
  opening: { definition: CampaignDefinition; rows: RowCheck; source: CsvSource; names: FieldNames },
): Promise<{ existing: CampaignDefinition | undefined; kept: KeptRows | undefined; firstRowOf: PhoneRowIndex }> {
  const { definition, rows, source, names } = opening;
  const dryRun = input.dryRun === true;
  const firstRowOf = new PhoneRowIndex(source.estimatedRows);
  const existing = await ledger.getCampaign(definition.id);
  const kept =
    existing === undefined
      ? undefined
      : await continuedRows(ledger, await verifySameCampaign(ledger, existing, definition, names), {
          file: input.file,
          delimiter: source.delimiter,
          recipientOf: (fields) => {
            const verdict = rows.check(fields);
            return verdict.ok ? verdict.to : verdict.phone;
          },
          recipients: firstRowOf,
          signal: input.signal,
          names,
        });
  input.onStart?.({ estimatedRows: source.estimatedRows, continuing: existing !== undefined });
  if (!dryRun && existing === undefined) await ledger.createCampaign(definition);
  if (!dryRun && input.allowRepeat === true) await ledger.allowRepeat(definition.id);
  // Continuing an interrupted ingest: lift the pause it left (its parked rows are in the backlog).
  if (!dryRun && existing !== undefined) await ledger.liftIngestPause(definition.id);
  return { existing, kept, firstRowOf };
}

/** Anything the CSV reader still throws (an I/O error mid-file) becomes an AppError saying where. */
async function* readRecords(records: AsyncIterable<CsvRecord>, file: string, names: FieldNames): AsyncIterable<CsvRecord> {
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
      `${file}: reading stopped after line ${line}: ${(error as Error).message}. Rows before it are in the ` +
        `campaign; fix the file and send it again with ${names.campaignId} to add the rest.`,
      { cause: error },
    );
  }
}

/**
 * Sending into an existing campaign: it must send the same thing (template, number, columns)
 * and must not be cancelled (a cancelled campaign stays cancelled).
 */
async function verifySameCampaign(
  ledger: IngestLedger,
  existing: CampaignDefinition,
  definition: CampaignDefinition,
  names: FieldNames,
): Promise<CampaignStatus | undefined> {
  // Each plan as the schema writes it (its keys in one order), whether just made or read back from Redis.
  const same = (d: CampaignDefinition) =>
    JSON.stringify([
      d.phoneNumberId,
      d.plan === undefined ? null : sendPlanSchema.parse(d.plan),
      d.languages?.plans.map((plan) => sendPlanSchema.parse(plan)) ?? null,
      d.text ?? null,
      d.source.phoneColumn,
      d.window ?? null,
      d.source.timezoneColumn ?? null,
      d.clicks ?? null,
    ]);
  if (same(existing) !== same(definition)) {
    const sent = campaignMessage(existing);
    const columns = sent.kind === 'text' ? sent.text.columns : sent.plan.slots.map((s) => s.column);
    throw new AppError(
      'CAMPAIGN_MISMATCH',
      `Campaign ${definition.id} already exists with ` +
        `${describeMessage(sent)}${sent.kind === 'text' && sent.text.previewUrl ? ` (${names['text.previewUrl']})` : ''} ` +
        `and columns ${columns.join(',')}; use the same options, or a new campaign ID.`,
    );
  }
  const status = await ledger.status(definition.id);
  if (status?.purgedAt !== undefined) {
    throw new AppError(
      'CAMPAIGN_PURGED',
      `Campaign ${definition.id} was purged (its rows are gone, so rows sent before could not be ` +
        `told apart); send the file under a new ${names.campaignId} ID.`,
    );
  }
  if (status?.state === 'cancelled') {
    throw new AppError(
      'CAMPAIGN_STATE_CONFLICT',
      `Campaign ${definition.id} is cancelled and stays cancelled. To send its unsent rows, ` +
        `send the file under a new ${names.campaignId} ID: ` +
        'recipients this number already sent the same message to within DUPLICATE_WINDOW_HOURS are skipped as ALREADY_SENT.',
    );
  }
  return status;
}

/** The rows of the campaign this run keeps (checkContinuedFile), from a second read of the file. */
async function continuedRows(
  ledger: IngestLedger,
  status: CampaignStatus | undefined,
  input: {
    file: string;
    delimiter: string;
    recipientOf: (fields: readonly string[]) => string;
    recipients: PhoneRowIndex;
    signal: AbortSignal | undefined;
    names: FieldNames;
  },
): Promise<KeptRows | undefined> {
  const campaignRows = status?.counts.total ?? 0;
  if (campaignRows === 0) return undefined;
  const { names, ...rest } = input;
  const again = await openCsv(input.file, { delimiter: input.delimiter });
  try {
    return await checkContinuedFile({
      ledger,
      campaignId: status?.id ?? '',
      campaignRows,
      records: readRecords(again.records, input.file, names),
      campaignOption: names.campaignId,
      ...rest,
    });
  } finally {
    again.close();
  }
}
