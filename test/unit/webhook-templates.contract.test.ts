import { describe, expect, it } from 'vitest';
import { templateQualityPayloads } from '../../src/sandbox/template-quality.js';
import { templateStatusPayload } from '../../src/sandbox/template-status.js';
import { parseWebhook } from '../../src/webhooks/webhook-events.js';

/**
 * Contract of the template webhooks (reference cloud-api.md §3.7, §5.3; cloud-api-2026.md):
 * what Meta sends, checked on what the sandbox sends, and read back by the product's parser.
 *
 * - `message_template_status_update`: `event`, `message_template_id` (a number),
 *   `message_template_name`, `message_template_language`, `reason`.
 * - `message_template_quality_update`: `previous_quality_score`, `new_quality_score` and the
 *   template's id, name and language.
 * - `template_category_update`: `previous_category`, `new_category` and the same three.
 * - One entry per WhatsApp Business Account with its `id` and `time` (seconds).
 */
type Json = Record<string, unknown>;
const AT = Date.parse('2026-11-20T12:00:00Z');

function changeOf(raw: string): { entry: Json; field: string; value: Json } {
  const body = JSON.parse(raw) as { object: string; entry: (Json & { changes: { field: string; value: Json }[] })[] };
  expect(body.object).toBe('whatsapp_business_account');
  const entry = body.entry[0];
  const change = entry?.changes[0];
  if (entry === undefined || change === undefined) throw new Error('no change');
  return { entry, ...change };
}

const TEMPLATE_KEYS = ['message_template_id', 'message_template_language', 'message_template_name'];

describe('template webhooks: the sandbox sends what Meta sends, and the parser reads it', () => {
  it('message_template_status_update: PAUSED with its reason, then REINSTATED', () => {
    for (const event of ['PAUSED', 'REINSTATED'] as const) {
      const raw = templateStatusPayload({ name: 'spring_promo', language: 'en_US', event, reason: 'LOW_QUALITY' }, '1002003004005004', AT);
      const { entry, field, value } = changeOf(raw);
      expect(field).toBe('message_template_status_update');
      expect(entry).toMatchObject({ id: expect.stringMatching(/^\d+$/) as unknown, time: AT / 1000 });
      expect(Object.keys(value).sort()).toEqual(['event', ...TEMPLATE_KEYS, 'reason'].sort());
      expect(value.message_template_id).toBe(1002003004005004);
      const parsed = parseWebhook(raw);
      if (!parsed.ok) throw new Error(parsed.problem);
      expect(parsed.events.templates).toEqual([{ event, name: 'spring_promo', language: 'en_US', detail: 'LOW_QUALITY' }]);
      expect(parsed.events).toMatchObject({ malformed: 0, ignored: 0 });
    }
  });

  it('message_template_quality_update and template_category_update, each its own change', () => {
    const raws = templateQualityPayloads(
      { name: 'order_update', language: 'en_US', quality: 'YELLOW', category: 'MARKETING' },
      { templateId: '1002003004005001', quality: 'GREEN', category: 'UTILITY' },
      AT,
    );
    const changes = raws.map(changeOf);
    expect(changes.map((c) => c.field)).toEqual(['message_template_quality_update', 'template_category_update']);
    expect(Object.keys(changes[0]?.value ?? {}).sort()).toEqual([...TEMPLATE_KEYS, 'new_quality_score', 'previous_quality_score'].sort());
    expect(Object.keys(changes[1]?.value ?? {}).sort()).toEqual([...TEMPLATE_KEYS, 'new_category', 'previous_category'].sort());
    const parsed = raws.map((raw) => parseWebhook(raw));
    const info = parsed.flatMap((p) => (p.ok ? p.events.templateInfo : []));
    expect(info).toEqual([
      { kind: 'quality', name: 'order_update', language: 'en_US', value: 'YELLOW', previous: 'GREEN', at: AT },
      { kind: 'category', name: 'order_update', language: 'en_US', value: 'MARKETING', previous: 'UTILITY', at: AT },
    ]);
  });

  it('a status update without the template it is about is malformed, not applied', () => {
    const raw = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: '1', time: 1, changes: [{ field: 'message_template_status_update', value: { event: 'PAUSED' } }] }],
    });
    const parsed = parseWebhook(raw);
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(parsed.events.templates).toEqual([]);
    expect(parsed.events.malformed).toBe(1);
  });
});
