import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATE_FIELDS, parseFields, pickFields, unknownFieldError } from '../../src/sandbox/template-fields.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';

const template = {
  name: 'spring_promo',
  language: 'en_US',
  status: 'APPROVED',
  category: 'MARKETING',
  sub_category: 'CUSTOM',
  parameter_format: 'POSITIONAL',
  id: '1002003004005004',
  quality_score: { score: 'GREEN' },
  components: [{ type: 'BODY', text: 'Hi {{1}}.' }],
} as MessageTemplate;

describe('sandbox templates list fields', () => {
  it("without fields: Graph's default fields, and no other", () => {
    expect(parseFields(undefined)).toBe(DEFAULT_TEMPLATE_FIELDS);
    const shown = pickFields(template, DEFAULT_TEMPLATE_FIELDS);
    expect(Object.keys(shown).sort()).toEqual([
      'category',
      'components',
      'id',
      'language',
      'name',
      'parameter_format',
      'status',
      'sub_category',
    ]);
    expect(shown).not.toHaveProperty('quality_score');
  });

  it('with fields: only those, plus id, which Graph always adds', () => {
    expect(pickFields(template, parseFields('status') as string[])).toEqual({ status: 'APPROVED', id: '1002003004005004' });
    expect(pickFields(template, parseFields(' name , quality_score,id ') as string[])).toEqual({
      name: 'spring_promo',
      quality_score: { score: 'GREEN' },
      id: '1002003004005004',
    });
  });

  it('the fields the product asks for are all served', () => {
    const asked = parseFields('id,name,language,status,category,parameter_format,components') as string[];
    expect(Object.keys(pickFields(template, asked))).toEqual(asked);
  });

  it('an empty or repeated fields parameter is refused (code 100 at the route)', () => {
    expect(typeof parseFields('')).toBe('string');
    expect(typeof parseFields(['name', 'id'])).toBe('string');
  });

  it("a field Graph's template node does not have is refused with 100, naming it", () => {
    expect(unknownFieldError(parseFields('name,status') as string[])).toBeUndefined();
    expect(unknownFieldError(parseFields('name,qualty_score') as string[])).toEqual({
      code: 100,
      type: 'OAuthException',
      message: '(#100) Tried accessing nonexisting field (qualty_score) on node type (WhatsAppBusinessHSMWhatsAppTemplate)',
    });
  });
});
