/**
 * The placeholders of a template's texts, as Meta writes them: `{{1}}` (positional) or
 * `{{first_name}}` (named).
 */
/** `{{1}}` or `{{first_name}}`; group 1 is the name. Global: use with matchAll/replace. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/**
 * Placeholder names in a text. Positional templates come back sorted by number
 * (`{{2}} … {{1}}` still takes parameter 1 first); named ones in order of first appearance.
 */
export function placeholdersIn(text: string, format: 'POSITIONAL' | 'NAMED'): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(PLACEHOLDER)) seen.add(match[1] ?? '');
  const names = [...seen];
  return format === 'POSITIONAL' ? names.sort((a, b) => Number(a) - Number(b)) : names;
}

/** The text with each `{{name}}` replaced by its value (unknown names are left as written). */
export function renderPlaceholders(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => values.get(name) ?? whole);
}
