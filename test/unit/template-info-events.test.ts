import { describe, expect, it } from 'vitest';
import { parseWebhook } from '../../src/webhooks/webhook-events.js';

/** Meta's template quality and category webhooks: for the WABA (entry.id, entry.time), no phone number. */
const TIME = 1_764_000_000;
function envelope(changes: object[]): string {
  return JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', time: TIME, changes }] });
}
const template = { message_template_id: 806312974732579, message_template_name: 'order_update', message_template_language: 'en_US' };

describe('parseWebhook: template quality and category', () => {
  it('reads a quality score change and a done category change, timed by entry.time', () => {
    const parsed = parseWebhook(
      envelope([
        { field: 'message_template_quality_update', value: { ...template, previous_quality_score: 'GREEN', new_quality_score: 'YELLOW' } },
        { field: 'template_category_update', value: { ...template, previous_category: 'UTILITY', new_category: 'MARKETING' } },
      ]),
    );
    expect(parsed).toMatchObject({ ok: true, events: { ignored: 0, malformed: 0, templates: [] } });
    expect(parsed.ok && parsed.events.templateInfo).toEqual([
      { kind: 'quality', name: 'order_update', language: 'en_US', value: 'YELLOW', previous: 'GREEN', at: TIME * 1000 },
      { kind: 'category', name: 'order_update', language: 'en_US', value: 'MARKETING', previous: 'UTILITY', at: TIME * 1000 },
    ]);
  });

  it("reads a quality change filed under message_template_status_update (Meta's own example does), not as a status", () => {
    const parsed = parseWebhook(
      envelope([
        { field: 'message_template_status_update', value: { ...template, previous_quality_score: 'YELLOW', new_quality_score: 'RED' } },
      ]),
    );
    expect(parsed.ok && parsed.events.templateInfo).toMatchObject([{ kind: 'quality', value: 'RED', previous: 'YELLOW' }]);
    expect(parsed.ok && parsed.events.templates).toEqual([]);
  });

  it('counts an announced category change as ignored (it changes nothing for 24 h) and one without a name as malformed', () => {
    const parsed = parseWebhook(
      envelope([
        {
          field: 'template_category_update',
          value: { ...template, correct_category: 'MARKETING', new_category: 'UTILITY', category_update_timestamp: TIME + 86_400 },
        },
        { field: 'template_category_update', value: { new_category: 'MARKETING' } },
        { field: 'message_template_quality_update', value: { ...template } },
      ]),
    );
    expect(parsed).toMatchObject({ ok: true, events: { templateInfo: [], ignored: 1, malformed: 2 } });
  });
});
