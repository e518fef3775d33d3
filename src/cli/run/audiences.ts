import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { AppContext } from '../../app/app-context.js';
import {
  deleteAudience,
  exportAudience,
  importAudience,
  type AudienceDetail,
  type AudienceImportOutcome,
  type AudienceSummary,
} from '../../app/audiences.js';
import type { OptOutsOptions } from '../../app/opt-outs.js';
import { audienceNotFound } from '../../audiences/audience-name.js';
import { audienceTarget } from '../../app/audiences-context.js';
import { AppError } from '../../errors/app-error.js';

const DUPLICATES_NOTE = 'a later row of the same number replaced them; listed in the rejects file';
import { ingestProgressPrinter } from './progress-lines.js';

/** `campaign audiences …`: the use cases of src/app/audiences.ts, in the operator's words. */

const n = (value: number): string => value.toLocaleString('en-US');
const day = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface ImportOptions {
  target: OptOutsOptions;
  replace?: boolean | undefined;
  phoneColumn?: string | undefined;
  defaultCountry?: string | undefined;
  delimiter?: string | undefined;
  consentColumn?: string | undefined;
  json?: boolean | undefined;
}

export async function runImport(context: AppContext, name: string, file: string, o: ImportOptions): Promise<string> {
  let estimated = 0;
  const progress = ingestProgressPrinter(() => estimated);
  const outcome = await importAudience(
    context,
    {
      name,
      file,
      target: o.target,
      ...(o.phoneColumn === undefined ? {} : { phoneColumn: o.phoneColumn }),
      ...(o.defaultCountry === undefined ? {} : { defaultCountry: o.defaultCountry }),
      ...(o.delimiter === undefined ? {} : { delimiter: o.delimiter }),
      ...(o.consentColumn === undefined ? {} : { consentColumn: o.consentColumn }),
      replace: o.replace === true,
    },
    (rows, estimate) => {
      estimated = estimate ?? estimated;
      progress(rows);
    },
  );
  return o.json === true ? JSON.stringify(outcome) : importText(outcome);
}

/** What `audiences import` prints. */
export function importText(o: AudienceImportOutcome): string {
  const verb = o.replaced !== undefined ? 'replaced' : o.created ? 'created' : 'updated';
  const lines = [
    `Audience ${o.name} (portfolio ${o.portfolio}) ${verb}: ${n(o.contacts)} contacts, ${n(o.bytes)} bytes in Redis.`,
    `  rows read:   ${n(o.read)}`,
    `  added:       ${n(o.added)}`,
    `  updated:     ${n(o.updated)}`,
    `  rejected:    ${n(o.rejected)}${o.rejected > 0 && o.rejectsFile !== undefined ? ` (row, phone and reason in ${o.rejectsFile})` : ''}`,
    `  duplicates:  ${n(o.duplicates)}${o.duplicates > 0 ? ` (${DUPLICATES_NOTE})` : ''}`,
    `  columns:     ${o.columns.length === 0 ? '(none)' : o.columns.join(', ')}`,
  ];
  if (o.replaced !== undefined) lines.push(`  before:      ${n(o.replaced)} contacts (those not in the file are gone)`);
  if (o.consentRecorded > 0) lines.push(`  consent:     ${n(o.consentRecorded)} opt-ins recorded`);
  return lines.join('\n');
}

/** What `audiences list` prints. */
export function audiencesText(list: readonly AudienceSummary[]): string {
  if (list.length === 0) return 'No audiences. `campaign audiences import NAME FILE` creates one.';
  const width = Math.max(...list.map((a) => a.name.length), 4);
  return [
    `${'NAME'.padEnd(width)}  ${'CONTACTS'.padStart(10)}  UPDATED               COLUMNS`,
    ...list.map((a) => `${a.name.padEnd(width)}  ${n(a.contacts).padStart(10)}  ${day(a.updatedAt)}  ${a.columns.join(', ')}`),
  ].join('\n');
}

/** What `audiences show` prints. */
export function audienceText(a: AudienceDetail): string {
  const width = Math.max(...a.columns.map((c) => c.length), 6);
  return [
    `Audience ${a.name} (portfolio ${a.portfolio}): ${n(a.contacts)} contacts, ${n(a.bytes)} bytes in Redis`,
    `  created ${day(a.createdAt)}, last import ${day(a.updatedAt)} from ${a.importedFrom}`,
    `  last import: ${n(a.lastImport.read)} read, ${n(a.lastImport.added)} added, ${n(a.lastImport.updated)} updated, ` +
      `${n(a.lastImport.rejected)} rejected, ${n(a.lastImport.duplicates)} duplicates`,
    `  opted out:   ${n(a.optedOut)} (MARKETING campaigns skip them)`,
    `  consent:     ${n(a.withConsent)} with an opt-in on record`,
    `  user IDs:    ${n(a.withUserId)} known from webhooks`,
    a.columns.length === 0 ? '  no attribute columns' : '  columns (contacts with a value):',
    ...a.columns.map((c) => `    ${c.padEnd(width)}  ${n(a.filled[c] ?? 0)}`),
  ].join('\n');
}

/** `audiences export`: to the file (its line for stderr), or to stdout. */
export async function runExport(context: AppContext, name: string, target: OptOutsOptions, output?: string): Promise<string | undefined> {
  if (output === undefined) {
    await exportAudience(context, target, name, process.stdout);
    return undefined;
  }
  const out = createWriteStream(output);
  const failed = once(out, 'error').then(([error]) => {
    throw new AppError('OUTPUT_UNWRITABLE', `${output} cannot be written: ${(error as Error).message}`, { cause: error });
  });
  const written = await Promise.race([exportAudience(context, target, name, out), failed]);
  out.end();
  await Promise.race([once(out, 'finish'), failed]);
  return `${n(written)} contacts of audience ${name} written to ${output}`;
}

export function removedText(name: string, result: { removed: number; notFound: string[] }): string {
  const missing = result.notFound.length === 0 ? '' : `; not in it: ${result.notFound.join(', ')}`;
  return `${n(result.removed)} contact${result.removed === 1 ? '' : 's'} removed from audience ${name}${missing}`;
}

export async function runDelete(context: AppContext, name: string, target: OptOutsOptions): Promise<string> {
  if (!(await deleteAudience(context, target, name))) throw audienceNotFound(name, audienceTarget(context, target).portfolio);
  return `Audience ${name} deleted with its contacts.`;
}
