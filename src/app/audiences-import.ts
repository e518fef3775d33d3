import { checkCountry } from '../campaigns/spec/country-option.js';
import { parseIsoTime } from '../consent/consent-file.js';
import { basename, dirname } from 'node:path';
import type { CountryCode } from 'libphonenumber-js';
import type { AudienceImportOutcome } from '../audiences/audience.js';
import { checkAudienceName } from '../audiences/audience-name.js';
import type { ConsentEntry } from '../consent/consent-entry.js';
import { openCsv, type CsvRecord } from '../csv/csv-records.js';
import { AppError } from '../errors/app-error.js';
import { PhoneRowIndex } from '../campaigns/ingest/phone-row-index.js';
import { RejectsFile, checkWritableDir, rejectsBeside } from '../campaigns/ingest/rejects-file.js';
import { checkTextRow } from '../campaigns/ingest/row-check.js';
import type { ColumnMapping } from '../campaigns/ingest/column-mapping.js';
import type { ContactValues } from '../redis/audiences/audience-import-writer.js';
import { audienceTarget, audienceStore, consentStore, type AudiencesContext } from './audiences-context.js';
import type { OptOutsOptions } from './opt-outs.js';

export interface AudienceImportRequest {
  name: string;
  file: string;
  target: OptOutsOptions;
  /** The column with the phone numbers (default `phone`). */
  phoneColumn?: string;
  /** ISO country of numbers written without a country code, as `send --default-country`. */
  defaultCountry?: string;
  delimiter?: string;
  /** The audience becomes exactly the file: contacts not in it are gone. */
  replace?: boolean;
  /** A column whose non-empty cell records an opt-in (its time: the cell when it is an ISO date/time, else the import's). */
  consentColumn?: string;
  /** Where refused records go (default: beside the file, `<file name>.rejects.csv`). */
  rejectsFile?: string;
}

/** Contacts per write to Redis. */
const CHUNK = 1000;
/** A text plan with no placeholder: checkTextRow then checks the field count and the phone only, as `send` does. */
const PHONE_ONLY = { body: '', previewUrl: false, columns: [] };

/**
 * `campaign audiences import NAME FILE`: every record of the file is imported (a contact added
 * or updated) or refused with its row and reason (FIELD_COUNT, PHONE_MISSING, PHONE_INVALID,
 * a malformed record; DUPLICATE_PHONE for a row a later row of the same number replaces). A
 * re-import updates the file's columns of each contact and keeps its others; `replace` makes
 * the audience exactly the file, at once (a staged hash renamed onto it). A header without
 * the phone (or consent) column refuses the file with nothing written.
 */
export async function importAudience(
  context: AudiencesContext,
  request: AudienceImportRequest,
  onProgress?: (rowsRead: number, estimatedRows?: number) => void,
): Promise<AudienceImportOutcome> {
  const name = checkAudienceName(request.name);
  const { portfolio } = audienceTarget(context, request.target);
  const defaultCountry = checkCountry(request.defaultCountry, '--default-country');
  const source = await openCsv(request.file, { delimiter: request.delimiter });
  try {
    const layout = fileLayout(source.header, request);
    const rejectsPath = request.rejectsFile ?? rejectsBeside(request.file);
    await checkWritableDir(dirname(rejectsPath), "the rejects file's folder");
    const store = audienceStore(context);
    const before = await store.audience(portfolio, name);
    const replace = request.replace === true || before === undefined;
    const previous = before === undefined ? 0 : await store.contactCount(portfolio, name);
    const writer = await store.openImport(portfolio, name, layout.columns, request.replace === true);
    const importedAt = Date.now();
    const rejects = new RejectsFile(rejectsPath);
    const read = new ImportRead(layout, defaultCountry, rejects, name);
    try {
      let chunk: ContactValues[] = [];
      let consents: ConsentEntry[] = [];
      for await (const record of source.records) {
        read.take(record, chunk, consents, importedAt);
        if (chunk.length >= CHUNK) {
          await writer.write(chunk);
          chunk = [];
          if (consents.length > 0) await consentStore(context).record(portfolio, consents);
          consents = [];
          onProgress?.(read.rows, source.estimatedRows);
        }
      }
      await writer.write(chunk);
      if (consents.length > 0) await consentStore(context).record(portfolio, consents);
      const added = await writer.flush();
      const counts = read.counts(added, writer.mode === 'staged' ? 0 : undefined);
      await store.finishImport(portfolio, name, writer, {
        columns: [...writer.columns],
        createdAt: before?.createdAt ?? importedAt,
        updatedAt: importedAt,
        importedFrom: basename(request.file),
        lastImport: counts,
      });
      onProgress?.(read.rows, source.estimatedRows);
      const [contacts, bytes, rejectsFile] = await Promise.all([
        store.contactCount(portfolio, name),
        store.bytes(portfolio, name),
        rejects.close(),
      ]);
      return {
        name,
        portfolio,
        ...counts,
        created: replace,
        replaced: before !== undefined && request.replace === true ? previous : undefined,
        columns: [...writer.columns],
        contacts,
        bytes,
        consentRecorded: read.consentRecorded,
        rejectsFile,
        delimiter: source.delimiter,
      };
    } catch (error) {
      await store.abandonImport(writer).catch(() => undefined);
      await rejects.close().catch(() => undefined);
      throw error;
    }
  } finally {
    source.close();
  }
}

/** Where the file's columns are: the phone, the consent column, and the attributes (every column but the phone's). */
interface FileLayout {
  mapping: ColumnMapping;
  /** The attribute columns, in the file's order. */
  columns: string[];
  /** Field index of each attribute column. */
  indexes: number[];
  consent: { index: number; column: string } | undefined;
}

function fileLayout(header: readonly string[], request: AudienceImportRequest): FileLayout {
  const phoneColumn = request.phoneColumn ?? 'phone';
  const found = `Columns found: ${header.map((c) => `"${c}"`).join(', ')}.`;
  const phone = header.indexOf(phoneColumn);
  if (phone < 0) {
    throw new AppError(
      'CSV_HEADER_INVALID',
      `${request.file}: the header has no phone column "${phoneColumn}". ${found} Rename the column or pass --phone-column; ` +
        'nothing was written.',
    );
  }
  const consentColumn = request.consentColumn;
  const consent = consentColumn === undefined ? -1 : header.indexOf(consentColumn);
  if (consentColumn !== undefined && consent < 0) {
    throw new AppError(
      'CSV_HEADER_INVALID',
      `${request.file}: the header has no consent column "${consentColumn}" (--consent-column). ${found} Nothing was written.`,
    );
  }
  const indexes = header.flatMap((_, i) => (i === phone ? [] : [i]));
  return {
    mapping: { fieldCount: header.length, phone, slots: [], headerMedia: undefined },
    columns: indexes.map((i) => header[i] ?? ''),
    indexes,
    consent: consentColumn === undefined ? undefined : { index: consent, column: consentColumn },
  };
}

/** The records of one import as they are read: which are written, which refused, and the counts. */
class ImportRead {
  rows = 0;
  rejected = 0;
  duplicates = 0;
  consentRecorded = 0;
  readonly #firstRow = new PhoneRowIndex(1 << 16);
  /** For a phone met more than once: the row that holds it now (the latest). */
  readonly #latestRow = new Map<string, number>();
  #unique = 0;

  constructor(
    private readonly layout: FileLayout,
    private readonly defaultCountry: CountryCode | undefined,
    private readonly rejects: RejectsFile,
    private readonly name: string,
  ) {}

  take(record: CsvRecord, chunk: ContactValues[], consents: ConsentEntry[], importedAt: number): void {
    const row = ++this.rows;
    if (record.kind === 'malformed') {
      this.#refuse(row, '', record.reason, record.problem);
      return;
    }
    const verdict = checkTextRow(record.fields, { text: PHONE_ONLY, mapping: this.layout.mapping, defaultCountry: this.defaultCountry });
    if (!verdict.ok) {
      this.#refuse(row, verdict.phone, verdict.reason, verdict.detail);
      return;
    }
    const phone = verdict.to;
    const first = this.#firstRow.get(phone);
    if (first === undefined) {
      this.#firstRow.setIfAbsent(phone, row);
      this.#unique++;
    } else {
      const replaced = this.#latestRow.get(phone) ?? first;
      this.#latestRow.set(phone, row);
      this.duplicates++;
      this.rejects.add({
        row: replaced,
        line: 0,
        phone,
        reason: 'DUPLICATE_PHONE',
        detail: `row ${row} has the same number; the later row is the one imported`,
      });
    }
    const fields = record.fields;
    chunk.push([phone, this.layout.indexes.map((i) => (fields[i] ?? '').trim())]);
    const consent = this.layout.consent;
    const cell = consent === undefined ? '' : (fields[consent.index] ?? '').trim();
    if (consent !== undefined && cell !== '') {
      consents.push({
        phone,
        kind: 'opt-in',
        at: parseIsoTime(cell) ?? importedAt,
        source: `audience ${this.name}, column ${consent.column}`,
      });
      this.consentRecorded++;
    }
  }

  /** The counts once every contact is written: `added` from Redis, `updated` the rest of the unique phones. */
  counts(added: number, updated?: number): { read: number; added: number; updated: number; rejected: number; duplicates: number } {
    return { read: this.rows, added, updated: updated ?? this.#unique - added, rejected: this.rejected, duplicates: this.duplicates };
  }

  #refuse(row: number, phone: string, reason: Parameters<RejectsFile['add']>[0]['reason'], detail: string): void {
    this.rejected++;
    this.rejects.add({ row, line: 0, phone, reason, detail });
  }
}
/** `contacts.csv` → `contacts.rejects.csv` beside it. */
