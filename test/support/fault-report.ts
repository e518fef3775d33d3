import { parse } from 'csv-parse/sync';
import type { StatusView } from '../../src/app/views/status-view.js';
import type { AcceptedMessage } from '../../src/sandbox/index.js';

/** What the fault-injection suite reads back through the CLI, and how it checks it against the sandbox. */

/** `campaign status ID --json`: the CLI's own view type, so a change to it breaks these tests at compile time. */
export type StatusJson = StatusView;

/** One line of `campaign report ID --out FILE`. */
export interface ReportRow {
  row: number;
  phone: string;
  status: string;
  messageId: string;
  errorCode: string;
  errorDetail: string;
  attempts: number;
}

export interface SendSummary {
  id: string;
  rows: number;
  queued: number;
  rejected: number;
  skipped: number;
}

/** The lines of a `campaign report` CSV. */
export function parseReport(csv: string): ReportRow[] {
  const records = parse<Record<string, string>>(csv, { columns: true, skip_empty_lines: true });
  return records.map((r) => ({
    row: Number(r.row),
    phone: r.phone ?? '',
    status: r.status ?? '',
    messageId: r.message_id ?? '',
    errorCode: r.error_code ?? '',
    errorDetail: r.error_detail ?? '',
    attempts: Number(r.attempts),
  }));
}

/** Accepted messages per recipient (wa_id digits). */
export function byWaId(accepted: readonly AcceptedMessage[]): Map<string, AcceptedMessage[]> {
  const by = new Map<string, AcceptedMessage[]>();
  for (const m of accepted) {
    const list = by.get(m.waId);
    if (list === undefined) by.set(m.waId, [m]);
    else list.push(m);
  }
  return by;
}

/**
 * Checks the report against what the sandbox accepted: a `sent` row carries the wamid the
 * sandbox returned for that very phone; a `failed` row was never accepted (else a recipient
 * got a message we say failed). Returns the problems found, one line each (empty = consistent).
 */
export function crossCheck(report: readonly ReportRow[], accepted: readonly AcceptedMessage[]): string[] {
  const problems: string[] = [];
  const byWamid = new Map(accepted.map((m) => [m.wamid, m]));
  const perRecipient = byWaId(accepted);
  for (const r of report) {
    const waId = r.phone.replace(/\D/g, '');
    const times = perRecipient.get(waId)?.length ?? 0;
    if (r.status === 'sent') {
      const m = byWamid.get(r.messageId);
      if (m === undefined) problems.push(`row ${r.row}: sent with ${r.messageId || 'no wamid'}, which the sandbox never accepted`);
      else if (m.waId !== waId) problems.push(`row ${r.row}: wamid ${r.messageId} was accepted for ${m.waId}, not ${waId}`);
    }
    if (r.status === 'failed' && times > 0) {
      problems.push(`row ${r.row}: reported failed (${r.errorCode}: ${r.errorDetail}) but the sandbox accepted it ${times}×`);
    }
  }
  return problems;
}
