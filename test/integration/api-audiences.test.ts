import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audienceCampaignRoute } from '../../src/api/routes/audience-campaign-route.js';
import { createCampaignRoute } from '../../src/api/routes/campaign-create-route.js';
import {
  deleteAudienceRoute,
  getAudienceRoute,
  importAudienceRoute,
  listAudiencesRoute,
  removeContactsRoute,
} from '../../src/api/routes/audiences-routes.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { documented, refused } from '../support/api-documented.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { phoneNumber } from '../support/csv-files.js';
import { PHONE_NUMBER_ID } from '../support/pipeline.js';

/** Ten contacts, every third gold; one bad phone, one duplicate (the later row wins), one formula in a cell. */
const CSV = [
  'phone,first_name,order_id,tier',
  ...Array.from({ length: 10 }, (_, i) => `${phoneNumber(i + 1)},Name${i + 1},A-${i + 1},${(i + 1) % 3 === 0 ? 'gold' : 'silver'}`),
  'not-a-phone,Bad,A-0,gold',
  `${phoneNumber(2)},Second,A-2b,silver`,
  `${phoneNumber(11)},"=HYPERLINK(""x"")",A-11,bronze`,
].join('\n');

type Scope = 'read' | 'send' | 'admin' | 'none';

/** The audience routes over real HTTP (a real service, real Redis): what `campaign audiences …` does, and a campaign sent to one. */
describe('HTTP API: audiences', () => {
  const api = new ApiTestService('api-audiences');

  beforeAll(async () => {
    await api.start({ ...CAMPAIGN_API_ENV, PORTFOLIOS: `${PHONE_NUMBER_ID}:retail` });
  });
  afterAll(async () => {
    expect(api.checkAnswers()).toStrictEqual([]);
    await api.close();
  });

  const put = (name: string, body: string | FormData, query = '', scope: Scope = 'send', type = 'text/csv') =>
    api.call(`/audiences/${name}${query}`, { method: 'PUT', scope, body, headers: { 'content-type': type } });

  it('imports a CSV: counts, the first refusals inline, the rejects file in REPORTS_DIR; a re-import updates', async () => {
    const created = (await documented(importAudienceRoute, await put('weekly', CSV), 201)) as Record<string, unknown>;
    expect(created).toMatchObject({
      name: 'weekly',
      portfolio: 'retail',
      read: 13,
      added: 11,
      updated: 0,
      rejected: 1,
      duplicates: 1,
      contacts: 11,
      created: true,
      replaced: null,
      columns: ['first_name', 'order_id', 'tier'],
      rejectsFile: 'audiences/retail/weekly.rejects.csv',
      rejectsTotal: 2,
    });
    expect((created.rejects as { reason: string }[]).map((r) => r.reason).sort()).toStrictEqual(['DUPLICATE_PHONE', 'PHONE_INVALID']);
    expect(await readFile(join(api.reportsDir, 'audiences/retail/weekly.rejects.csv'), 'utf8')).toContain('PHONE_INVALID');

    // A multipart form (what the Audiences page sends) with a new column: an update, the old columns kept.
    const form = new FormData();
    form.append('file', new Blob([`phone,city\n${phoneNumber(1)},Berlin\n`], { type: 'text/csv' }), 'cities.csv');
    const updated = await documented(
      importAudienceRoute,
      await api.call('/audiences/weekly', { method: 'PUT', scope: 'send', body: form }),
      200,
    );
    expect(updated).toMatchObject({
      added: 0,
      updated: 1,
      contacts: 11,
      columns: ['first_name', 'order_id', 'tier', 'city'],
      rejectsFile: null,
    });
  });

  it('lists and shows the audience, and exports it neutralised', async () => {
    const list = (await documented(listAudiencesRoute, await api.call('/audiences', { scope: 'read' }), 200)) as {
      portfolio: string;
      audiences: { name: string; contacts: number; importedFrom: string }[];
    };
    expect(list.portfolio).toBe('retail');
    expect(list.audiences).toMatchObject([{ name: 'weekly', contacts: 11, importedFrom: 'cities.csv' }]);
    const detail = await documented(getAudienceRoute, await api.call('/audiences/weekly?portfolio=retail', { scope: 'read' }), 200);
    expect(detail).toMatchObject({ contacts: 11, filled: { first_name: 11, tier: 11, city: 1 }, optedOut: 0, withConsent: 0 });

    const answer = await api.call(`/audiences/weekly/export?phoneNumberId=${PHONE_NUMBER_ID}`, { scope: 'read' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="weekly.csv"');
    const lines = (await answer.text()).trim().split('\n');
    expect(lines[0]).toBe('phone,first_name,order_id,tier,city,opted_out,user_id,consent');
    expect(lines).toHaveLength(12);
    expect(lines.find((line) => line.startsWith(phoneNumber(11)))).toContain(`"'=HYPERLINK(""x"")"`);
  });

  it('refuses by scope, an unknown audience (404), a bad name (422) and a bad body (400)', async () => {
    await refused(await api.call('/audiences', { scope: 'none' }), 401, 'API_TOKEN_MISSING');
    await refused(await put('weekly', CSV, '', 'read'), 403, 'API_SCOPE_REFUSED');
    await refused(await api.call('/audiences/weekly', { method: 'DELETE', scope: 'send' }), 403, 'API_SCOPE_REFUSED');
    await refused(await api.call('/audiences/nobody', { scope: 'read' }), 404, 'AUDIENCE_NOT_FOUND');
    await refused(await api.call('/audiences/nobody/export', { scope: 'read' }), 404, 'AUDIENCE_NOT_FOUND');
    const bad = await refused(
      await api.call(`/audiences/${encodeURIComponent('bad name!')}`, { scope: 'read' }),
      422,
      'AUDIENCE_NAME_INVALID',
    );
    expect(bad.detail).toContain('a name starts with a letter or digit');
    await refused(await put('weekly', 'mobile,x\n1,2\n', '?phoneColumn=mobil'), 422, 'CSV_HEADER_INVALID').then((p) =>
      expect(p.detail).toContain('phoneColumn'),
    );
    await refused(await put('weekly', '{}', '', 'send', 'application/json'), 415, 'API_REQUEST_INVALID');
    await refused(await put('weekly', CSV, '?portfolio=wholesale&phoneNumberId=' + PHONE_NUMBER_ID), 422, 'OPTION_INVALID');
  });

  it('starts a campaign from the audience with `where` through POST /campaigns (JSON, and multipart without a file)', async () => {
    const spec = { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'], audience: 'weekly' };
    const post = (body: unknown) =>
      api.call('/campaigns', {
        method: 'POST',
        scope: 'send',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
    const plan = await documented(createCampaignRoute, await post({ ...spec, where: 'tier = "gold"', dryRun: true }), 200);
    // Contacts 3, 6 and 9 are gold.
    expect(plan).toMatchObject({ dryRun: true, rows: 3, valid: 3, rejected: 0 });

    const form = new FormData();
    form.append('spec', JSON.stringify({ ...spec, where: 'tier in ("silver", "bronze")', name: 'Silver' }));
    const created = (await documented(
      createCampaignRoute,
      await api.call('/campaigns', { method: 'POST', scope: 'send', body: form }),
      201,
    )) as { id: string; rows: number; queued: number };
    expect(created).toMatchObject({ rows: 8, queued: 8 });
    expect((await new RedisLedger(api.redis, api.prefix).getCampaign(created.id))?.audience).toEqual({
      name: 'weekly',
      where: 'tier in ("silver", "bronze")',
    });

    const where = await refused(await post({ ...spec, where: 'colour = "red"' }), 422, 'AUDIENCE_WHERE_INVALID');
    expect(where.problems?.[0]?.field).toBe('where');
    const both = new FormData();
    both.append('spec', JSON.stringify(spec));
    both.append('file', new Blob([CSV], { type: 'text/csv' }), 'x.csv');
    const refusedBoth = await refused(await api.call('/campaigns', { method: 'POST', scope: 'send', body: both }), 422, 'OPTION_INVALID');
    expect(refusedBoth.detail).toContain('give it or a CSV file, not both');
    const neither = await refused(
      await post({ template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] }),
      422,
      'OPTION_INVALID',
    );
    expect(neither.detail).toContain('Give the CSV file of recipients');
    await refused(await post({ ...spec, audience: 'nobody' }), 404, 'AUDIENCE_NOT_FOUND');
  });

  it('starts a campaign through POST /audiences/{name}/campaigns, the documented form a generated client uses', async () => {
    const spec = { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] };
    const post = (name: string, body: unknown) =>
      api.call(`/audiences/${name}/campaigns`, {
        method: 'POST',
        scope: 'send',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
    const plan = await documented(audienceCampaignRoute, await post('weekly', { ...spec, where: 'tier = "gold"', dryRun: true }), 200);
    expect(plan).toMatchObject({ dryRun: true, rows: 3, valid: 3 });
    const created = (await documented(audienceCampaignRoute, await post('weekly', { ...spec, name: 'All' }), 201)) as { id: string };
    expect((await new RedisLedger(api.redis, api.prefix).getCampaign(created.id))?.audience).toEqual({ name: 'weekly' });
    const where = await refused(await post('weekly', { ...spec, where: 'tier in gold' }), 422, 'AUDIENCE_WHERE_INVALID');
    expect(where.problems?.[0]).toMatchObject({ field: 'where', detail: expect.stringContaining('at position 9') as unknown });
    await refused(await post('nobody', spec), 404, 'AUDIENCE_NOT_FOUND');
    // The audience is the path's: the body names none.
    await refused(await post('weekly', { ...spec, audience: 'other' }), 400, 'API_REQUEST_INVALID');
  });

  it('removes contacts, then deletes the audience (admin): 204, then 404', async () => {
    const body = JSON.stringify({ phones: [phoneNumber(1), '015110000002', '+4915199999999'], defaultCountry: 'de' });
    const removal = await api.call('/audiences/weekly/contacts', {
      method: 'DELETE',
      scope: 'send',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(await documented(removeContactsRoute, removal, 200)).toStrictEqual({ removed: 2, notFound: ['+4915199999999'] });
    const deleted = await api.call('/audiences/weekly', { method: 'DELETE', scope: 'admin' });
    expect(deleted.status).toBe(204);
    expect(deleteAudienceRoute.responses[204]).toBeDefined();
    await refused(await api.call('/audiences/weekly', { method: 'DELETE', scope: 'admin' }), 404, 'AUDIENCE_NOT_FOUND');
    expect(await documented(listAudiencesRoute, await api.call('/audiences', { scope: 'read' }), 200)).toMatchObject({ audiences: [] });
  });
});
