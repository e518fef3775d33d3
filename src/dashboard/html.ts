import { printableBlock } from '../text/operator-text.js';

/**
 * HTML built from template strings, escaped by default. Every value put into `html\`…\`` is
 * escaped (`& < > " '`), so a campaign ID, a pause reason or an error detail that came from a
 * user's file can never become markup; only another `html\`…\`` fragment (already escaped)
 * is kept as it is. Attribute values are always written in double quotes, which the escape
 * covers too. Control and bidi characters (NUL, ESC, RLO…) are shown as escapes (`\u202e`), as
 * the operator-text rule says: a stored reason or a name from Meta cannot reorder or hide what
 * the page shows.
 */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return printableBlock(text).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** What may go into a template: text and numbers (escaped), fragments, lists of them; null, undefined and false add nothing. */
export type HtmlValue = string | number | boolean | null | undefined | SafeHtml | readonly HtmlValue[];

/** A value as markup: fragments kept, lists joined, nothing for null, undefined and false, anything else escaped. */
function markup(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(markup).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += markup(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}
