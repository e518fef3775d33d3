import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { statusJson, statusViewSchema } from '../../src/app/views/status-view.js';
import { optOutJson, optOutViewSchema } from '../../src/app/views/opt-out-view.js';
import { templatesJson, templateListing, templateViewSchema } from '../../src/app/views/template-view.js';
import { listCampaignsRoute } from '../../src/api/routes/campaign-list-route.js';
import { getCampaignRoute } from '../../src/api/routes/campaign-status-route.js';
import { listTemplatesRoute } from '../../src/api/routes/directory-routes.js';
import { optOutsListSchema } from '../../src/api/schemas/directory-schemas.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { statusOf } from './dashboard-fixtures.js';

/**
 * The views of src/app/views are what the CLI's `--json` prints and the HTTP API answers: the
 * API documents the very schema the view is typed by, and what the view makes fits it exactly.
 */
describe('the views the CLI and the API share', () => {
  it('are the schemas the API documents, not copies of them', () => {
    expect(getCampaignRoute.responses[200].schema).toBe(statusViewSchema);
    expect(listCampaignsRoute.responses[200].schema.shape.campaigns.element).toBe(statusViewSchema);
    expect(listTemplatesRoute.responses[200].schema.shape.templates.element).toBe(templateViewSchema);
    expect(optOutsListSchema.shape.optOuts.element).toBe(optOutViewSchema);
  });

  it('make what their schema describes, field for field: none missing, none more', () => {
    const status = statusOf('c-view', { pausedReason: 'price list', pausedAt: Date.UTC(2026, 10, 25) }, { total: 3, queued: 3 });
    expect(() => z.strictObject(statusViewSchema.shape).parse(statusJson(status))).not.toThrow();

    const templates = (JSON.parse(readFileSync(SAMPLE_TEMPLATES, 'utf8')) as { data: MessageTemplate[] }).data;
    const views = templatesJson(templateListing(templates, { all: true }));
    expect(views.length).toBeGreaterThan(0);
    for (const view of views) expect(() => z.strictObject(templateViewSchema.shape).parse(view)).not.toThrow();

    const optOut = optOutJson({ phone: '+4915112345678', source: { campaignId: '', row: 0, at: 0, via: 'operator' } });
    expect(z.strictObject(optOutViewSchema.shape).parse(optOut)).toStrictEqual({
      phone: '+4915112345678',
      at: '1970-01-01T00:00:00.000Z',
      via: 'operator',
      campaignId: null,
      row: null,
    });
  });
});
