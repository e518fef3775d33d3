/**
 * Size limits of the CSV reader. They exist so that a broken file (a 5 MB cell, a quote that
 * opens and runs on for thousands of lines) costs bounded memory: text beyond them is
 * counted, never kept, and the record it belongs to is rejected instead of copied into Redis
 * and reports.
 */

/**
 * Longest field, in UTF-16 code units (what String#length counts; an emoji counts 2). No
 * template value can be longer: Meta allows 1,024 characters for a whole body.
 */
export const FIELD_LIMIT = 4_096;

/**
 * Longest record (all its fields, separators and line breaks). A physical line is never held
 * beyond this either, and the look-ahead of a quoted field that spans lines stops here.
 */
export const RECORD_LIMIT = 64 * 1_024;

/** 4,096 → "4,096": numbers in messages are read by people. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
