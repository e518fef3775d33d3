import type { ConsentEntry } from '../../consent/consent-entry.js';

/*
 * How record.lua keeps a history (its header says why): entries joined by ',', each
 * `<kind><at>.<source id>`, kind '+' (opt-in) or '-' (opt-out), at as AT_DIGITS base-36 digits.
 */

/** Fixed width, so that comparing two times' text compares the times: 36^9 ms reaches the year 5138. */
export const AT_DIGITS = 9;
const LATEST = 36 ** AT_DIGITS - 1;

/** A time as record.lua takes it; RangeError for one it cannot hold (before 1970, not whole ms, too far ahead). */
export function encodeAt(at: number): string {
  if (!Number.isSafeInteger(at) || at < 0 || at > LATEST)
    throw new RangeError(`a consent entry's time must be whole ms from 1970 on, not ${at}`);
  return at.toString(36).padStart(AT_DIGITS, '0');
}

export const KIND_CODES: Readonly<Record<ConsentEntry['kind'], string>> = { 'opt-in': '+', 'opt-out': '-' };

/** One stored entry before its source's words are looked up. */
export interface StoredEntry {
  kind: ConsentEntry['kind'];
  at: number;
  sourceId: string;
}

const ENTRY = /^([+-])([0-9a-z]+)\.([0-9a-z]+)$/;

/** A stored history, newest first; an entry this version cannot read is left out. */
export function decodeHistory(stored: string): StoredEntry[] {
  const entries: StoredEntry[] = [];
  for (const text of stored.split(',')) {
    const match = ENTRY.exec(text);
    if (match === null) continue;
    entries.push({ kind: match[1] === '+' ? 'opt-in' : 'opt-out', at: parseInt(match[2] ?? '', 36), sourceId: match[3] ?? '' });
  }
  return entries;
}

/** Whether a stored history's newest entry is an opt-in (its first character), without reading the rest. */
export function newestIsOptIn(stored: string | null | undefined): boolean {
  return stored !== null && stored !== undefined && stored.startsWith(KIND_CODES['opt-in']);
}
