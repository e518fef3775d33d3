/**
 * A template language as one key, whichever way it is written. Meta lists and sends template
 * languages as `en_US`, but some of its own template webhook examples write `en-US`; a user
 * may type either. Both name one translation, so every comparison of languages goes through
 * this (the ledger's scripts apply the same rule: src/redis/lua/includes/language.lua). What
 * is sent keeps the template's own spelling, as Meta lists it.
 */
export function languageKey(code: string): string {
  return code.replaceAll('-', '_');
}

export function sameLanguage(a: string, b: string): boolean {
  return languageKey(a) === languageKey(b);
}

/** One translation of a template (name and language) as a map key: "<name>\n<language key>". */
export function translationKey(name: string, language: string): string {
  return `${name}\n${languageKey(language)}`;
}
