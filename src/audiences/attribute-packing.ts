/**
 * A contact's attributes as Redis keeps them: one JSON array of strings, in the audience's
 * column order. The names are kept once per audience, not once per contact (five attributes
 * of a million contacts would otherwise store five million names). A contact packed before a
 * column was added has a shorter array: the missing values read as ''.
 */
export function packAttributes(values: readonly string[]): string {
  return JSON.stringify(values);
}

/** The packed values as column → value; anything unreadable reads as empty values. */
export function unpackAttributes(packed: string | null | undefined, columns: readonly string[]): Record<string, string> {
  return namedAttributes(unpackValues(packed), columns);
}

/** Values in column order as column → value ('' past the end). */
export function namedAttributes(values: readonly string[], columns: readonly string[]): Record<string, string> {
  const attributes: Record<string, string> = {};
  columns.forEach((column, i) => (attributes[column] = values[i] ?? ''));
  return attributes;
}

/** The packed values in column order (strings only; anything else reads as ''). */
export function unpackValues(packed: string | null | undefined): string[] {
  if (packed === null || packed === undefined || packed === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(packed);
  } catch {
    return [];
  }
  // Lua's cjson writes an empty table as `{}`, never an array: no values.
  if (!Array.isArray(parsed)) return [];
  return parsed.map((value) => (typeof value === 'string' ? value : ''));
}
