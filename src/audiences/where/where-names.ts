/** Attribute names as a `--where` expression writes them: bare when it can, else in backquotes. */

/** Words with a meaning of their own: an attribute of one of these names is written in backquotes (`` `in` ``). */
export const WHERE_KEYWORDS: ReadonlySet<string> = new Set(['and', 'or', 'not', 'in', 'contains', 'is', 'empty']);

const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** `country`, `` `first name` ``, `` `in` ``, `` `a\`b` ``: the name as one would type it in an expression. */
export function attributeAsWritten(name: string): string {
  if (BARE_NAME.test(name) && !WHERE_KEYWORDS.has(name.toLowerCase())) return name;
  return `\`${name.replace(/[\\`]/g, '\\$&')}\``;
}
