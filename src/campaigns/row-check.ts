import { toE164 } from '../phone/e164.js';
import type { ColumnMapping } from './column-mapping.js';
import type { RejectionReason } from './rejection-reasons.js';

export type RowVerdict =
  | { ok: true; to: string; values: string[]; headerLink: string | undefined }
  | { ok: false; phone: string; reason: RejectionReason; detail: string };

const SPACE_RUN = / {5,}/;

/**
 * Checks one CSV record against the column mapping and Meta's parameter rules, so that no
 * request the API would refuse is ever queued. The detail names the column and the fix.
 */
export function checkRow(fields: readonly string[], mapping: ColumnMapping): RowVerdict {
  const rawPhone = (fields[mapping.phone] ?? '').trim();
  if (fields.length !== mapping.fieldCount) {
    return reject(rawPhone, 'FIELD_COUNT', `expected ${mapping.fieldCount} fields as in the header, found ${fields.length} (check quoting and delimiters)`);
  }
  if (rawPhone === '') return reject(rawPhone, 'PHONE_MISSING', 'the phone column is empty');
  const phone = toE164(rawPhone);
  if (!phone.ok) return reject(rawPhone, 'PHONE_INVALID', phone.reason);

  const values: string[] = [];
  for (const { column, index } of mapping.params) {
    const value = (fields[index] ?? '').trim();
    const problem = valueProblem(value);
    if (problem !== undefined) return reject(phone.e164, problem, `column "${column}": ${PROBLEM_TEXT[problem]}`);
    values.push(value);
  }

  let headerLink: string | undefined;
  if (mapping.headerImage !== undefined) {
    headerLink = (fields[mapping.headerImage.index] ?? '').trim();
    if (!isHttpsUrl(headerLink)) {
      return reject(phone.e164, 'HEADER_LINK_INVALID', `column "${mapping.headerImage.column}": "${headerLink}" is not an https:// URL`);
    }
  }
  return { ok: true, to: phone.e164, values, headerLink };
}

type ValueProblem = 'VALUE_EMPTY' | 'VALUE_LINE_BREAK' | 'VALUE_TAB' | 'VALUE_SPACES';

const PROBLEM_TEXT: Record<ValueProblem, string> = {
  VALUE_EMPTY: 'is empty; every template variable needs a value',
  VALUE_LINE_BREAK: 'contains a line break; Meta refuses line breaks in variables, put the text on one line',
  VALUE_TAB: 'contains a tab; Meta refuses tabs in variables, replace it with a space',
  VALUE_SPACES: 'contains more than 4 spaces in a row; Meta refuses that, collapse them',
};

function valueProblem(value: string): ValueProblem | undefined {
  if (value === '') return 'VALUE_EMPTY';
  if (value.includes('\n') || value.includes('\r')) return 'VALUE_LINE_BREAK';
  if (value.includes('\t')) return 'VALUE_TAB';
  if (SPACE_RUN.test(value)) return 'VALUE_SPACES';
  return undefined;
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

function reject(phone: string, reason: RejectionReason, detail: string): RowVerdict {
  return { ok: false, phone, reason, detail };
}
