import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CloudApiTransportError } from '../../src/cloud-api/cloud-api-errors.js';
import { REJECTION_REASONS } from '../../src/campaigns/rejection-reasons.js';
import { AppError, isAppError } from '../../src/errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../../src/errors/error-codes.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** The codes in the first column of the table that follows `heading`. */
function tableCodes(heading: string): string[] {
  const start = doc.indexOf(heading);
  if (start < 0) throw new Error(`docs/errors.md has no "${heading}" section`);
  const next = doc.indexOf('\n## ', start + heading.length);
  const section = doc.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/^\| `([A-Z0-9_]+)` \|(.*)\|(.*)\|\s*$/gm)].map((m) => m[1] ?? '');
}

describe('docs/errors.md', () => {
  const documented = tableCodes('## Error codes');

  it('the table was found (guards against a vacuous pass)', () => {
    expect(documented.length).toBeGreaterThan(0);
  });

  it.each(Object.keys(ERROR_CODES))('documents %s', (code) => {
    expect(documented).toContain(code);
  });

  it('lists no code that ERROR_CODES does not have, and none twice', () => {
    expect(documented.filter((code) => !(code in ERROR_CODES))).toStrictEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('every row has a meaning and an action', () => {
    for (const match of doc.matchAll(/^\| `([A-Z0-9_]+)` \|(.*)\|(.*)\|\s*$/gm)) {
      expect(match[2]?.trim(), `${match[1]} meaning`).not.toBe('');
      expect(match[3]?.trim(), `${match[1]} action`).not.toBe('');
    }
  });

  it.each(Object.keys(REJECTION_REASONS))('documents rejection reason %s', (reason) => {
    expect(tableCodes('## Row rejection reasons')).toContain(reason);
  });
});

describe('ERROR_CODES and AppError', () => {
  it('every code has an operator sentence', () => {
    for (const [code, sentence] of Object.entries(ERROR_CODES)) {
      expect(sentence.length, code).toBeGreaterThan(10);
    }
  });

  it('AppError carries the code, the cause and its class name', () => {
    const cause = new Error('root');
    const error = new AppError('CSV_UNREADABLE', 'cannot read x.csv', { cause });

    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('CSV_UNREADABLE');
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('AppError');
    expect(error.message).toBe('cannot read x.csv');
    expect(new CloudApiTransportError('timeout', cause).name).toBe('CloudApiTransportError');
  });

  it('isAppError checks the class and, when given, the code', () => {
    const error = new AppError('CONFIG_INVALID', 'bad');
    const plain = Object.assign(new Error('bad'), { code: 'CONFIG_INVALID' satisfies ErrorCode });

    expect(isAppError(error)).toBe(true);
    expect(isAppError(error, 'CONFIG_INVALID')).toBe(true);
    expect(isAppError(error, 'CSV_UNREADABLE')).toBe(false);
    expect(isAppError(plain)).toBe(false);
    expect(isAppError(undefined)).toBe(false);
  });
});
