import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { actionForMetaCode, TRANSPORT_ACTION, type ErrorAction } from '../../src/campaigns/send/error-policy.js';

/**
 * The expected action for each Class cell of reference §2.3 (R / P / N / H). Read from the
 * reference itself, so a code added there is tested here; a Class this table does not know
 * fails the test instead of being skipped.
 */
const ACTION_FOR_CLASS: Record<string, readonly ErrorAction[]> = {
  R: ['retry'],
  'R (after ~1 min)': ['retry'],
  H: ['halt-campaign'],
  N: ['fail-row'],
  'N (for free-form)': ['fail-row'],
  'P (app-wide)': ['throttle-number'],
  'P (WABA)': ['throttle-number'],
  'P (phone number) / R': ['throttle-number'],
  'P (that recipient only)': ['delay-recipient'],
  // This worker has no 24 h per-recipient parking: the row fails with Meta's code.
  'P (recipient, ≥24 h)': ['fail-row'],
  // Spam limit on the whole number, "resume much later, not in a tight loop": a human decides.
  'P (whole number) → often H': ['halt-campaign'],
  // A campaign has one template: a paused template stops the campaign until it is APPROVED again.
  'P (template)': ['halt-campaign'],
  // The reference allows either: the row is wrong, or the template is (every row will fail).
  'N / H (template)': ['fail-row', 'halt-campaign'],
};

interface Row {
  code: number;
  cell: string;
  klass: string;
}

function referenceTable(): Row[] {
  const text = readFileSync(new URL('../fixtures/reference/cloud-api.md', import.meta.url), 'utf8');
  const start = text.indexOf('### 2.3');
  const end = text.indexOf('\n---', start);
  if (start < 0) throw new Error('reference §2.3 not found in cloud-api.md');
  const rows: Row[] = [];
  for (const line of text.slice(start, end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const [, codes, , , , klass] = cells;
    if (codes === undefined || klass === undefined || !/^\d/.test(codes)) continue;
    for (const part of codes.split('/').map((p) => p.trim())) {
      const range = /^(\d+)[–-](\d+)$/.exec(part);
      const numbers = range === null ? [Number(part)] : [Number(range[1]), Math.floor((Number(range[1]) + Number(range[2])) / 2), Number(range[2])];
      for (const code of numbers) rows.push({ code, cell: codes, klass });
    }
  }
  return rows;
}

const table = referenceTable();

describe('actionForMetaCode: every code of reference §2.3', () => {
  it('the reference table was read (guards against a vacuous pass)', () => {
    const codes = new Set(table.map((r) => r.code));
    expect(codes.size).toBeGreaterThanOrEqual(37);
    for (const code of [0, 1, 2, 4, 100, 190, 200, 299, 368, 80007, 130429, 131049, 131056, 132001, 132015, 133004]) {
      expect(codes.has(code), String(code)).toBe(true);
    }
    for (const row of table) expect(Number.isInteger(row.code), row.cell).toBe(true);
  });

  it.each(table.map((r) => [r.code, r.klass] as const))('%i (class %s) maps to the class action, whatever the HTTP status', (code, klass) => {
    const allowed = ACTION_FOR_CLASS[klass];
    expect(allowed, `unknown class "${klass}" in the reference: add it to ACTION_FOR_CLASS`).toBeDefined();
    // Under each status the HTTP fallback would say something different, so only an explicit
    // entry for the code gives the same answer under all of them.
    for (const status of [400, 401, 404, 429, 500, 503]) {
      expect(allowed, `code ${code} with HTTP ${status}`).toContain(actionForMetaCode(code, status));
    }
    expect(new Set([400, 429, 500].map((status) => actionForMetaCode(code, status))).size, `code ${code} depends on HTTP status`).toBe(1);
  });

  it('spot checks the brief names', () => {
    expect(actionForMetaCode(131056, 400)).toBe('delay-recipient');
    expect(actionForMetaCode(131056, 429)).toBe('delay-recipient');
    expect(actionForMetaCode(130429, 400)).toBe('throttle-number');
    expect(actionForMetaCode(131049, 400)).toBe('fail-row');
    expect(actionForMetaCode(190, 401)).toBe('halt-campaign');
    expect(actionForMetaCode(100, 400)).toBe('fail-row');
    expect(actionForMetaCode(132018, 400)).toBe('fail-row');
    expect(actionForMetaCode(131000, 500)).toBe('retry');
  });
});

describe('actionForMetaCode: unknown codes fall back on the HTTP status', () => {
  const fallback: [number, ErrorAction][] = [
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
    [504, 'retry'],
    [429, 'throttle-number'],
    [401, 'halt-campaign'],
    [403, 'halt-campaign'],
    [400, 'fail-row'],
    [404, 'fail-row'],
    [409, 'fail-row'],
    [422, 'fail-row'],
  ];

  it.each(fallback)('unknown code, HTTP %i → %s', (status, action) => {
    expect(actionForMetaCode(999_999, status)).toBe(action);
  });

  it.each(fallback)('no code at all (non-Graph body), HTTP %i → %s', (status, action) => {
    expect(actionForMetaCode(undefined, status)).toBe(action);
  });

  it.each([200, 230, 299])('Graph permission code %i → halt-campaign', (code) => {
    expect(actionForMetaCode(code, 400)).toBe('halt-campaign');
    expect(actionForMetaCode(code, 500)).toBe('halt-campaign');
  });

  it('transport failures are retried', () => {
    expect(TRANSPORT_ACTION).toBe('retry');
  });
});
