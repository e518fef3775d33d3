/**
 * A text campaign's `{{column}}`: the name of a CSV column, which may hold spaces or any script
 * but no brace or line break; spaces just inside the braces are ignored (`{{ name }}` is
 * `{{name}}`). Its own module, without zod, so that the page's preview reads a text exactly as
 * the service does.
 */
export const TEXT_PLACEHOLDER = /\{\{([^{}\r\n]*)\}\}/g;
