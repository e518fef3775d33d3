import type { MessageTemplate } from '../templates/template-schema.js';

/**
 * The `fields` of `GET /{waba-id}/message_templates`. Without it Graph returns its default
 * fields; reference cloud-api.md lines 486-488 lists those seen in Meta's examples (name,
 * parameter_format, components, language, status, category, id, sometimes sub_category and
 * previous_category; the OpenAPI list example agrees). With it, only the fields asked for,
 * plus `id`, which Graph always adds (line 488: `?fields=status` → `{ status, id }`).
 */
export const DEFAULT_TEMPLATE_FIELDS: readonly string[] = Object.freeze([
  'name',
  'parameter_format',
  'components',
  'language',
  'status',
  'category',
  'id',
  'sub_category',
  'previous_category',
]);

/**
 * The field names a `fields` value asks for, or the reason it is invalid (answered as code 100).
 * undefined asks for the defaults.
 */
export function parseFields(value: unknown): readonly string[] | string {
  if (value === undefined) return DEFAULT_TEMPLATE_FIELDS;
  if (typeof value !== 'string' || value.trim() === '') return 'Parameter fields must be given once, as a comma-separated list';
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.includes('id') ? names : [...names, 'id'];
}

/**
 * The template with only those fields, in the order asked. A field the template does not
 * have is left out: what Graph answers for a name it does not know is not established by the
 * reference, so the sandbox neither invents a value nor an error for it.
 */
export function pickFields(template: MessageTemplate, fields: readonly string[]): Record<string, unknown> {
  const source = template as Record<string, unknown>;
  return Object.fromEntries(fields.filter((field) => source[field] !== undefined).map((field) => [field, source[field]]));
}
