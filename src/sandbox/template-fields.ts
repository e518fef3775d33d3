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
 * The fields Graph's template node (WhatsAppBusinessHSMWhatsAppTemplate) has, as Meta's
 * template management docs name them. A `fields` value naming any other is refused with 100,
 * as Graph refuses it (and as the sandbox's phone-number node does), so a client asking for a
 * misspelt or retired field finds out here rather than at Meta.
 */
export const TEMPLATE_NODE_FIELDS: ReadonlySet<string> = new Set([
  ...DEFAULT_TEMPLATE_FIELDS,
  'quality_score',
  'rejected_reason',
  'correct_category',
  'message_send_ttl_seconds',
  'cta_url_link_tracking_opted_out',
  'library_template_name',
]);

/** Graph's refusal of a field the template node does not have, or undefined when every field is one it has. */
export function unknownFieldError(fields: readonly string[]): { code: 100; type: 'OAuthException'; message: string } | undefined {
  const unknown = fields.find((field) => !TEMPLATE_NODE_FIELDS.has(field));
  if (unknown === undefined) return undefined;
  return {
    code: 100,
    type: 'OAuthException',
    message: `(#100) Tried accessing nonexisting field (${unknown}) on node type (WhatsAppBusinessHSMWhatsAppTemplate)`,
  };
}

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
 * The template with only those fields, in the order asked. A field of the node this template
 * has no value for (a `quality_score` the sandbox does not model) is left out.
 */
export function pickFields(template: MessageTemplate, fields: readonly string[]): Record<string, unknown> {
  const source = template as Record<string, unknown>;
  return Object.fromEntries(fields.filter((field) => source[field] !== undefined).map((field) => [field, source[field]]));
}
