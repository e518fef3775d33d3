import type { TemplateInfoUpdate } from '../campaigns/template-status.js';

/**
 * Meta's template quality and category webhooks, for the WABA (`entry.id`), with no phone number:
 * - `message_template_quality_update`: `{ previous_quality_score, new_quality_score,
 *   message_template_id, message_template_name, message_template_language }` (Meta's own example
 *   files it under `message_template_status_update`: a change with `new_quality_score` and no
 *   `event` is read as one too);
 * - `template_category_update`: done, `{ …, previous_category, new_category }`; announced 24 h
 *   ahead, `{ …, correct_category, new_category (the current one), category_update_timestamp }`,
 *   which changes nothing yet and is counted as ignored.
 * Returns undefined for a change of another kind.
 */
export function toTemplateInfo(
  field: unknown,
  value: Record<string, unknown>,
  atMs: number,
): TemplateInfoUpdate | 'malformed' | 'ignored' | undefined {
  const quality = field === 'message_template_quality_update' || (field === 'message_template_status_update' && value.event === undefined);
  if (!quality && field !== 'template_category_update') return undefined;
  const { message_template_name: name, message_template_language: language } = value;
  if (typeof name !== 'string' || name === '' || typeof language !== 'string' || language === '') return 'malformed';
  const [now, before] = quality ? [value.new_quality_score, value.previous_quality_score] : [value.new_category, value.previous_category];
  if (typeof now !== 'string' || now === '') return 'malformed';
  if (!quality && value.correct_category !== undefined) return 'ignored';
  const previous = typeof before === 'string' ? before.toUpperCase() : '';
  return { kind: quality ? 'quality' : 'category', name, language, value: now.toUpperCase(), previous, at: atMs };
}

/** `entry.time` (Unix seconds) in ms, else now. */
export function entryTimeMs(entry: Record<string, unknown>): number {
  return typeof entry.time === 'number' && Number.isFinite(entry.time) ? entry.time * 1000 : Date.now();
}
