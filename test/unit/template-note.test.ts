import { describe, expect, it } from 'vitest';
import { campaignView } from '../../src/dashboard/campaign-view.js';
import { templateNote } from '../../src/dashboard/dashboard-reader.js';
import { DASH } from '../../src/dashboard/display-format.js';
import { statusOf } from './dashboard-fixtures.js';

describe("the campaigns page's template note (what Meta's webhooks last said of the campaign's template)", () => {
  it('says the quality and category with what they were, and nothing when no webhook came', () => {
    expect(templateNote(undefined)).toBeUndefined();
    expect(templateNote({})).toBeUndefined();
    expect(
      templateNote({
        quality: { value: 'YELLOW', previous: 'GREEN', at: 1 },
        category: { value: 'MARKETING', previous: 'UTILITY', at: 2 },
      }),
    ).toBe('quality YELLOW (was GREEN) · category MARKETING (was UTILITY)');
    expect(templateNote({ category: { value: 'MARKETING', previous: '', at: 2 } })).toBe('category MARKETING');
  });

  it('is a field of the view, a dash without one', () => {
    const base = {
      phoneNumberId: '1',
      message: 'template order_update (en_US)',
      etaSeconds: undefined,
      numberRate: undefined,
      tally: undefined,
    };
    expect(campaignView(statusOf('c'), base).fields.template).toBe(DASH);
    expect(campaignView(statusOf('c'), { ...base, templateNote: 'quality RED' }).fields.template).toBe('quality RED');
  });
});
