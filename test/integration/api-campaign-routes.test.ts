import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCampaignRoute } from '../../src/api/routes/campaign-status-route.js';
import { campaignRejectsRoute } from '../../src/api/routes/campaign-files-routes.js';
import { RejectsFile, rejectsFilePath } from '../../src/campaigns/ingest/rejects-file.js';
import type { AppContext } from '../../src/app/app-context.js';
import { runReport } from '../../src/cli/run/report.js';
import { readCampaignStatus, statusViewOf } from '../../src/app/campaign-status.js';
import { documented, refused } from '../support/api-documented.js';
import { answeredCampaign } from '../support/api-campaigns.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER } from '../support/ledger-fixtures.js';
import { RedisUserLinks } from '../../src/redis/webhooks/redis-user-links.js';
import { ApiTestService } from '../support/api-service.js';
import { testContext } from '../support/app-context.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';

/** GET /campaigns/{id}, its report and its rejects file, over real HTTP, against what the CLI shows of the same campaign. */
describe('HTTP API: a campaign, its report and its rejects', () => {
  const api = new ApiTestService('api-campaign-read');
  let context: AppContext;

  beforeAll(async () => {
    await api.start({ TEMPLATES_FILE: SAMPLE_TEMPLATES });
    context = testContext(api.prefix, { REPORTS_DIR: api.reportsDir });
  });
  afterAll(async () => {
    await context.redis.quit();
    await api.close();
  });

  it('answers a campaign as `campaign status --json` shows it, and 404 CAMPAIGN_NOT_FOUND for none', async () => {
    await answeredCampaign(context.ledger, 'c-status', ['sent', 'failed', 'queued'], { name: 'Status check' });
    const answer = await api.call('/campaigns/c-status', { scope: 'read' });
    const view = await documented(getCampaignRoute, answer, 200);
    expect(view).toStrictEqual(statusViewOf(await readCampaignStatus(context, 'c-status', Date.now())));
    expect(view).toMatchObject({ id: 'c-status', name: 'Status check', total: 3, sent: 1, failed: 1, queued: 1 });
    await refused(await api.call('/campaigns/nope', { scope: 'read' }), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it('streams the report `campaign report` writes, named as it saves it; 410 CAMPAIGN_PURGED once purged', async () => {
    await answeredCampaign(context.ledger, 'c-report', ['sent', 'failed', 'sent'], { name: 'Spring sale' });
    // A user ID known for row 1's recipient: the report's user_id column shows it.
    const links = new RedisUserLinks(context.redis, api.prefix, new Map());
    await links.learn([{ phoneNumberId: LEDGER_TEST_NUMBER, userId: 'DE.user-1', waId: phoneNumber(1).slice(1), at: Date.now() }]);
    const answer = await api.call('/campaigns/c-report/report', { scope: 'read' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="c-report-spring-sale.csv"');
    const streamed = await answer.text();
    const outcome = await runReport(context, 'c-report', join(api.reportsDir, 'cli-report.csv'));
    expect(outcome).toMatchObject({ kind: 'file', lines: 3 });
    expect(streamed).toBe(await readFile(join(api.reportsDir, 'cli-report.csv'), 'utf8'));
    expect(streamed.split('\n').slice(0, 2)).toStrictEqual([expect.stringContaining(',user_id,'), expect.stringContaining(',DE.user-1,')]);

    await context.ledger.purge('c-report');
    const gone = await refused(await api.call('/campaigns/c-report/report', { scope: 'read' }), 410, 'CAMPAIGN_PURGED');
    expect(gone.detail).toContain('purged');
    await refused(await api.call('/campaigns/nope/report', { scope: 'read' }), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it('serves the rejects file as CSV, its first rows as JSON, and 404 REJECTS_NOT_FOUND when the campaign has none', async () => {
    await answeredCampaign(context.ledger, 'c-rejects', ['queued']);
    const file = new RejectsFile(rejectsFilePath(api.reportsDir, 'c-rejects'));
    file.add({ row: 2, line: 3, phone: '12', reason: 'PHONE_INVALID', detail: 'too short' });
    file.add({ row: 4, line: 5, phone: '=cmd', reason: 'PHONE_INVALID', detail: 'not a number' });
    file.add({ row: 5, line: 6, phone: '+4915110000001', reason: 'DUPLICATE_PHONE', detail: 'same as row 1' });
    const path = await file.close();

    const csv = await api.call('/campaigns/c-rejects/rejects', { scope: 'read' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await csv.text()).toBe(await readFile(path!, 'utf8'));

    const json = await documented(
      campaignRejectsRoute,
      await api.call('/campaigns/c-rejects/rejects?format=json&limit=2', { scope: 'read' }),
      200,
    );
    expect(json).toStrictEqual({
      rows: [
        { row: 2, phone: '12', reason: 'PHONE_INVALID', detail: 'too short' },
        // JSON carries the value as it was; only the CSV form quotes it for spreadsheets.
        { row: 4, phone: '=cmd', reason: 'PHONE_INVALID', detail: 'not a number' },
      ],
      truncated: true,
    });
    const all = await api.call('/campaigns/c-rejects/rejects?format=json', { scope: 'read' });
    expect(await all.json()).toMatchObject({ truncated: false, rows: [{}, {}, { row: 5, reason: 'DUPLICATE_PHONE' }] });

    await answeredCampaign(context.ledger, 'c-clean', ['queued']);
    await refused(await api.call('/campaigns/c-clean/rejects', { scope: 'read' }), 404, 'REJECTS_NOT_FOUND');
    await refused(await api.call('/campaigns/nope/rejects', { scope: 'read' }), 404, 'CAMPAIGN_NOT_FOUND');
    const bad = await refused(
      await api.call('/campaigns/c-rejects/rejects?format=xml&limit=0', { scope: 'read' }),
      400,
      'API_REQUEST_INVALID',
    );
    expect(bad.problems).toHaveLength(2);
  });

  it('answered every call as its OpenAPI document says', () => {
    expect(api.answers.length).toBeGreaterThan(3);
    expect(api.checkAnswers()).toStrictEqual([]);
  });
});
