import type { AppContext } from '../../app/app-context.js';
import { consentHistory, importConsent, type ConsentHistory, type ConsentImportResult } from '../../app/consent.js';
import type { OptOutsTarget } from '../../app/opt-outs.js';
import { printable, printableJson } from '../../text/operator-text.js';
import { throttled } from './progress-lines.js';

/** `campaign consent import | show`: the consent use cases of src/app/consent.ts, in the operator's words. */
type ConsentContext = Pick<AppContext, 'config' | 'ledger' | 'redis'>;

interface TargetFlags {
  phoneNumberId?: string;
  portfolio?: string;
  json?: boolean;
}

const n = (value: number): string => value.toLocaleString('en-US');

export async function runConsentImport(
  context: ConsentContext,
  file: string,
  o: TargetFlags & { source?: string; defaultCountry?: string; delimiter?: string },
): Promise<string> {
  const progress = throttled(
    (p: { rowsRead: number; estimatedRows: number }) =>
      `reading the file: ${n(p.rowsRead)} of about ${n(Math.max(p.rowsRead, p.estimatedRows))} rows`,
    (line) => process.stderr.write(`${line}\n`),
  );
  const result = await importConsent(
    context,
    {
      file,
      target: { phoneNumberId: o.phoneNumberId, portfolio: o.portfolio },
      defaultCountry: o.defaultCountry,
      delimiter: o.delimiter,
      source: o.source,
    },
    progress,
  );
  return o.json === true ? printableJson(JSON.stringify(result)) : importText(result);
}

export function importText(result: ConsentImportResult): string {
  const head =
    `${printable(result.file)}: ${n(result.rowsRead)} rows read; ${n(result.recorded)} opt-ins recorded on ${where(result)}` +
    (result.rejected === 0
      ? '.'
      : `; ${n(result.rejected)} rejected (each with its row and reason in ${printable(result.rejectsFile ?? '?')}):`);
  const lines = result.rejections.map((r) => `  row ${r.row} (line ${r.line}): ${r.reason}: ${printable(r.detail)}`);
  if (result.rejected > result.rejections.length) lines.push(`  … and ${n(result.rejected - result.rejections.length)} more in the file`);
  return [head, ...lines].join('\n');
}

export async function runConsentShow(context: ConsentContext, phone: string, o: TargetFlags): Promise<string> {
  const history = await consentHistory(context, { phoneNumberId: o.phoneNumberId, portfolio: o.portfolio }, phone);
  if (o.json === true) {
    const entries = history.entries.map((e) => ({ at: e.at === 0 ? null : new Date(e.at).toISOString(), kind: e.kind, source: e.source }));
    return printableJson(JSON.stringify({ phone: history.phone, portfolio: history.portfolio, entries }));
  }
  return historyText(history);
}

/** A table, newest first: when (ISO, UTC), opted in / opted out, how. */
export function historyText(history: ConsentHistory): string {
  if (history.entries.length === 0) return `${history.phone}: no consent on record on ${where(history)}.`;
  const rows = history.entries.map((e) => [
    e.at === 0 ? 'unknown' : new Date(e.at).toISOString(),
    e.kind === 'opt-in' ? 'opted in' : 'opted out',
    printable(e.source),
  ]);
  const header = ['when (UTC)', 'what', 'how'];
  const widths = [0, 1].map((i) => Math.max(header[i]?.length ?? 0, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]): string => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c)).join('  ');
  return [`${history.phone} on ${where(history)}, newest first:`, line(header), ...rows.map(line)].join('\n');
}

function where(target: OptOutsTarget): string {
  return `portfolio ${target.portfolio}${target.phoneNumberId === undefined ? '' : ` (of ${target.phoneNumberId})`}`;
}
