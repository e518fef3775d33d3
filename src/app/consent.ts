import { checkCountry } from '../campaigns/spec/country-option.js';
import { basename } from 'node:path';
import type { CountryCode } from 'libphonenumber-js';
import type { ConsentEntry } from '../consent/consent-entry.js';
import { checkConsentRow, consentColumns, type ConsentColumns } from '../consent/consent-file.js';
import { openConsentRejects, type ConsentRejection } from '../consent/consent-rejects.js';
import { rejectsBeside, type RejectsFile } from '../campaigns/ingest/rejects-file.js';
import { openCsv, type CsvSource } from '../csv/csv-records.js';
import { AppError } from '../errors/app-error.js';
import { phoneRefusalCode, toE164 } from '../phone/e164.js';
import { RedisConsent, CONSENT_ENTRIES_PER_CALL } from '../redis/consent/redis-consent.js';
import { optOutSourceWords } from '../redis/consent/opt-out-consent.js';
import { checkOperatorText } from '../text/operator-text.js';
import type { AppContext } from './app-context.js';
import { optOutsTarget, type OptOutsOptions, type OptOutsTarget } from './opt-outs.js';

/** What consent is read and recorded with (the API's context has no close()). */
type ConsentContext = Pick<AppContext, 'config' | 'ledger' | 'redis'>;

export interface ConsentImportRequest {
  file: string;
  /** The portfolio, named directly or through a number (default WHATSAPP_PHONE_NUMBER_ID's). */
  target: OptOutsOptions;
  /** ISO country of numbers written without a country code. */
  defaultCountry?: string | undefined;
  delimiter?: string | undefined;
  /** The source of rows whose `source` is empty or absent; default `consent file <name of the file>`. */
  source?: string | undefined;
}

export interface ConsentImportProgress {
  rowsRead: number;
  estimatedRows: number;
}

/** Every row answered: recorded, or rejected with its row number and reason (all in the rejects file, the first here). */
export type ConsentImportResult = OptOutsTarget & {
  file: string;
  rowsRead: number;
  recorded: number;
  rejected: number;
  /** Beside the file (`<name>.rejects.csv`); undefined when no row was rejected. */
  rejectsFile: string | undefined;
  /** The first FIRST_REJECTIONS rejected rows. */
  rejections: ConsentRejection[];
};

/** Rejected rows the answer itself lists; the rejects file has them all. */
export const FIRST_REJECTIONS = 20;

/**
 * `campaign consent import FILE`: each row of the file becomes an opt-in in its person's
 * consent history in the target's business portfolio. A file without a phone column, or
 * without data rows, is refused whole (CONSENT_FILE_INVALID) before anything is recorded.
 */
export async function importConsent(
  context: ConsentContext,
  request: ConsentImportRequest,
  onProgress?: (progress: ConsentImportProgress) => void,
): Promise<ConsentImportResult> {
  const target = optOutsTarget(context, request.target);
  const defaultCountry = checkCountry(request.defaultCountry, '--default-country');
  const defaultSource =
    request.source === undefined ? `consent file ${basename(request.file)}` : checkOperatorText(request.source, '--source', 'the source');
  const csv = await openCsv(request.file, { delimiter: request.delimiter });
  try {
    const columns = consentColumns(request.file, csv.header);
    const rejects = await openConsentRejects(rejectsBeside(request.file));
    const rules = { columns, defaultCountry, defaultSource, now: await context.ledger.now() };
    const read = await readRows(
      csv,
      rules,
      new RedisConsent(context.redis, context.config.queuePrefix),
      target.portfolio,
      rejects,
      onProgress,
    );
    const rejectsFile = await rejects.close();
    if (read.rowsRead === 0) {
      throw new AppError('CONSENT_FILE_INVALID', `${request.file}: no data rows under the header; add one row per person who opted in`);
    }
    return { ...target, file: request.file, ...read, rejectsFile };
  } finally {
    csv.close();
  }
}

type ReadCounts = Pick<ConsentImportResult, 'rowsRead' | 'recorded' | 'rejected' | 'rejections'>;

async function readRows(
  csv: CsvSource,
  rules: { columns: ConsentColumns; defaultCountry: CountryCode | undefined; defaultSource: string; now: number },
  store: RedisConsent,
  portfolio: string,
  rejects: RejectsFile,
  onProgress: ((progress: ConsentImportProgress) => void) | undefined,
): Promise<ReadCounts> {
  const counts: ReadCounts = { rowsRead: 0, recorded: 0, rejected: 0, rejections: [] };
  const reject = (rejection: ConsentRejection): void => {
    counts.rejected++;
    rejects.add(rejection);
    if (counts.rejections.length < FIRST_REJECTIONS) counts.rejections.push(rejection);
  };
  let batch: ConsentEntry[] = [];
  const flush = async (): Promise<void> => {
    await store.record(portfolio, batch);
    counts.recorded += batch.length;
    batch = [];
  };
  for await (const record of csv.records) {
    const row = ++counts.rowsRead;
    if (record.kind === 'malformed') {
      reject({ row, line: record.line, phone: '', reason: record.reason, detail: record.problem });
    } else {
      const verdict = checkConsentRow(record.fields, rules);
      if (verdict.ok) batch.push(verdict.entry);
      else reject({ row, line: record.line, phone: verdict.phone, reason: verdict.reason, detail: verdict.detail });
    }
    if (batch.length >= CONSENT_ENTRIES_PER_CALL) await flush();
    onProgress?.({ rowsRead: row, estimatedRows: csv.estimatedRows });
  }
  await flush();
  return counts;
}

/** One person's consent history in a portfolio, newest first. */
export type ConsentHistory = OptOutsTarget & { phone: string; entries: ConsentEntry[] };

/**
 * `campaign consent show PHONE`: the person's history, newest first. An opt-out the portfolio
 * holds that the history has no entry for (recorded before consent was kept) is shown too,
 * at its time, with its source.
 */
export async function consentHistory(context: ConsentContext, options: OptOutsOptions, raw: string): Promise<ConsentHistory> {
  const target = optOutsTarget(context, options);
  const parsed = toE164(raw);
  if (!parsed.ok) throw new AppError(phoneRefusalCode(raw), `${parsed.reason}, e.g. +4915112345678`);
  const phone = parsed.e164;
  const [entries, optOuts] = await Promise.all([
    new RedisConsent(context.redis, context.config.queuePrefix).history(target.portfolio, phone),
    context.ledger.optOutsOfPortfolio(target.portfolio),
  ]);
  const optOut = optOuts.get(phone);
  if (optOut !== undefined && !entries.some((e) => e.kind === 'opt-out' && e.at === optOut.at)) {
    const source = `${optOutSourceWords('add', optOut)} (recorded before consent histories were kept)`;
    entries.push({ phone, kind: 'opt-out', at: optOut.at, source });
    entries.sort((a, b) => b.at - a.at);
  }
  return { ...target, phone, entries };
}
