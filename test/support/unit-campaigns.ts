import { readFileSync } from 'node:fs';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { planSend } from '../../src/campaigns/send-plan.js';
import { requirementsOf } from '../../src/templates/template-requirements.js';
import { templateListSchema } from '../../src/templates/template-schema.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

/** The phone number the unit-test campaigns send from. */
export const UNIT_NUMBER = '106540352242922';

const samples = templateListSchema.parse(JSON.parse(readFileSync(new URL('../../samples/templates.json', import.meta.url), 'utf8'))).data;

/**
 * A campaign of the sample `order_update` (en_US) template ("Hi {{1}}, your order {{2}} has
 * shipped.") filled from the columns first_name and order_id, as `campaign send` defines it:
 * for unit tests of the logic above the ledger (no Redis, no sandbox).
 */
export function orderUpdateDefinition(id: string, overrides: Partial<CampaignDefinition> = {}): CampaignDefinition {
  const template = samples.find((t) => t.name === 'order_update' && t.language === 'en_US');
  if (template === undefined) throw new Error('samples/templates.json lost order_update (en_US)');
  return {
    id,
    createdAt: 0,
    phoneNumberId: UNIT_NUMBER,
    plan: planSend(requirementsOf(template), ['phone', 'first_name', 'order_id'], { params: ['first_name', 'order_id'] }, CLI_FIELD_NAMES),
    source: { file: 'campaign.csv', phoneColumn: 'phone', fixWhitespace: false },
    ...overrides,
  };
}
