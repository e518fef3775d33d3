import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { haltReason } from '../../src/campaigns/send/halt-advice.js';
import { actionForMetaCode, TRANSPORT_ACTION, type ErrorAction } from '../../src/campaigns/send/error-policy.js';

/**
 * The expected action for each "Worker action" cell of reference §2.3, read from the
 * reference itself, so a code added there is tested here; an action this table does not know
 * fails the test instead of being skipped. A cell that names a second action for a variant
 * of the code (URL-button 131008, one header link for every row) allows both: the variant is
 * told apart by what the campaign sends, not by the code.
 */
function actionsOf(cell: string): ErrorAction[] {
  const found: ErrorAction[] = [];
  if (/^retry/.test(cell)) found.push('retry');
  if (/^slow the (whole )?number/.test(cell)) found.push('throttle-number');
  if (/^delay recipient/.test(cell)) found.push('delay-recipient');
  if (/^fail row/.test(cell)) found.push('fail-row');
  if (/halt campaign/.test(cell)) found.push('halt-campaign');
  return found;
}

interface Row {
  code: number;
  /** 100 + `error_subcode` 33: the subcode the row is about. */
  subcode?: number;
  cell: string;
  action: string;
}

/** Rows told apart by message text (`100, details …`): the policy never branches on text, so they are counted, not tested. */
let byMessageText = 0;

function referenceTable(): Row[] {
  const text = readFileSync(new URL('../fixtures/reference/cloud-api.md', import.meta.url), 'utf8');
  const start = text.indexOf('### 2.3');
  const end = text.indexOf('\n---', start);
  if (start < 0) throw new Error('reference §2.3 not found in cloud-api.md');
  const rows: Row[] = [];
  for (const line of text.slice(start, end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const [, codes, , , , , action] = cells;
    if (codes === undefined || action === undefined || !/^\d/.test(codes)) continue;
    const subcase = /^(\d+) \+ `error_subcode` (\d+)$/.exec(codes);
    if (subcase !== null) {
      rows.push({ code: Number(subcase[1]), subcode: Number(subcase[2]), cell: codes, action });
      continue;
    }
    if (/^\d+,/.test(codes)) {
      byMessageText++;
      continue;
    }
    for (const part of codes.split('/').map((p) => p.trim())) {
      const range = /^(\d+)[–-](\d+)$/.exec(part);
      const numbers =
        range === null ? [Number(part)] : [Number(range[1]), Math.floor((Number(range[1]) + Number(range[2])) / 2), Number(range[2])];
      for (const code of numbers) rows.push({ code, cell: codes, action });
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
    expect(byMessageText).toBeLessThanOrEqual(2);
  });

  it.each(table.map((r) => [r.code, r.subcode ?? 0, r.action] as const))(
    '%i (subcode %i: "%s") maps to its worker action, whatever the HTTP status',
    (code, subcode, action) => {
      const allowed = actionsOf(action);
      expect(allowed.length, `unknown worker action "${action}" in the reference: teach actionsOf`).toBeGreaterThan(0);
      const sub = subcode === 0 ? undefined : subcode;
      // Under each status the HTTP fallback would say something different, so only an explicit
      // entry for the code gives the same answer under all of them.
      for (const status of [400, 401, 404, 429, 500, 503]) {
        expect(allowed, `code ${code} with HTTP ${status}`).toContain(actionForMetaCode(code, status, sub));
      }
      expect(
        new Set([400, 429, 500].map((status) => actionForMetaCode(code, status, sub))).size,
        `code ${code} depends on HTTP status`,
      ).toBe(1);
    },
  );

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

  it('the Marketing Messages API: marketing only, template syncing, not eligible or not onboarded halt the campaign', () => {
    for (const code of [131055, 134100, 134101, 134102, 134103]) expect(actionForMetaCode(code, 400), String(code)).toBe('halt-campaign');
  });

  it("a halting Marketing Messages code says what to do; other codes keep Meta's details alone", () => {
    expect(haltReason(134102, 'not eligible')).toMatch(/^not eligible \(.*onboarding in WhatsApp Manager.*\)$/);
    expect(haltReason(134101, 'syncing')).toMatch(/wait, then resume/);
    expect(haltReason(134100, 'marketing only')).toMatch(/send this template through \/messages/);
    expect(haltReason(131063, 'disabled')).toMatch(/--endpoint marketing-messages/);
    expect(haltReason(132015, 'Template is Paused')).toBe('Template is Paused');
    expect(haltReason(undefined, 'HTTP 401')).toBe('HTTP 401');
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
