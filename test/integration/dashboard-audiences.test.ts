import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audiencesPage } from '../../src/dashboard/audiences-page.js';
import { PAGE_HEADERS } from '../../src/dashboard/layout.js';
import { RedisAudiences } from '../../src/redis/audiences/redis-audiences.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { phoneNumber } from '../support/csv-files.js';
import { PHONE_NUMBER_ID } from '../support/pipeline.js';

/** An attribute name (a CSV header) that is markup, and a cell that is a formula: both are a file's, hence hostile. */
const HOSTILE_COLUMN = '<img src=x onerror=alert(1)>';
const CSV = `phone,"${HOSTILE_COLUMN}",tier\n${phoneNumber(1)},"<script>alert(2)</script>",gold\n${phoneNumber(2)},,silver\n`;

/** The Audiences pages as `campaign serve` renders them (no browser): the list, an audience's page, its delete. */
describe('dashboard: the Audiences pages', () => {
  const api = new ApiTestService('dashboard-audiences');
  let base = '';

  beforeAll(async () => {
    await api.start({ ...CAMPAIGN_API_ENV, PORTFOLIOS: `${PHONE_NUMBER_ID}:retail` });
    base = api.service!.url;
    const put = await api.call('/audiences/weekly', { method: 'PUT', scope: 'send', body: CSV, headers: { 'content-type': 'text/csv' } });
    expect(put.status).toBe(201);
  });
  afterAll(async () => {
    await api.close();
  });

  it('lists every audience with its attributes escaped, a nav link beside Campaigns, and the pages’ CSP', async () => {
    const answer = await fetch(`${base}/audiences`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-security-policy')).toBe(PAGE_HEADERS['content-security-policy']);
    const page = await answer.text();
    expect(page).toContain('<a href="/">Campaigns</a> <a href="/audiences">Audiences</a>');
    expect(page).toContain('<a href="/audiences/retail/weekly">weekly</a>');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;, tier');
    expect(page).not.toContain('<img');
    expect(page).toContain('<script src="/dashboard/audiences.js" defer></script>');
    // Its one script is served, and no inline one is on the page.
    expect(page.match(/<script[^>]*>/g)?.every((tag) => / src="/.test(tag))).toBe(true);
    expect((await fetch(`${base}/dashboard/audiences.js`)).status).toBe(200);
  });

  it('escapes an audience name and a portfolio that are markup, in the list and on the 404 page', async () => {
    const listed = audiencesPage(
      [
        {
          portfolio: '<b>p</b>',
          audiences: [
            {
              name: '"><script>alert(3)</script>',
              contacts: 1,
              columns: [HOSTILE_COLUMN],
              createdAt: 0,
              updatedAt: 0,
              importedFrom: '<i>f</i>.csv',
              lastImport: { read: 1, added: 1, updated: 0, rejected: 0, duplicates: 0 },
            },
          ],
        },
      ],
      'token"<',
    ).value;
    expect(listed).not.toMatch(/<script>|<b>|<img|<i>/);
    expect(listed).toContain('&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;');
    expect(listed).toContain('data-csrf-token="token&quot;&lt;"');
    const missing = await fetch(`${base}/audiences/retail/${encodeURIComponent('<script>alert(4)</script>')}`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('No audience &lt;script&gt;alert(4)&lt;/script&gt;');
  });

  it("shows an audience's attributes escaped, an export button, and deletes it only with the page's token", async () => {
    const detail = await fetch(`${base}/audiences/retail/weekly`);
    expect(detail.status).toBe(200);
    const page = await detail.text();
    expect(page).toContain('<td>&lt;img src=x onerror=alert(1)&gt;</td><td class="num" data-fill="0">');
    expect(page).not.toContain('<img');
    expect(page).toContain('id="audience-export"');
    expect(page).toContain('data-confirm="Delete audience weekly and its 2 contacts for good?"');
    const token = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    expect(token).not.toBe('');
    const form = (body: string) =>
      fetch(`${base}/audiences/retail/weekly/delete`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        redirect: 'manual',
      });
    expect((await form('csrf=forged')).status).toBe(403);
    const store = new RedisAudiences(api.redis, api.prefix);
    expect(await store.audience('retail', 'weekly')).toBeDefined();
    const deleted = await form(`csrf=${encodeURIComponent(token)}`);
    expect({ status: deleted.status, location: deleted.headers.get('location') }).toStrictEqual({ status: 303, location: '/audiences' });
    expect(await store.audience('retail', 'weekly')).toBeUndefined();
    expect((await store.history('retail'))[0]).toMatchObject({ name: 'weekly', action: 'deleted', contacts: 2 });
    expect((await fetch(`${base}/audiences/retail/weekly`)).status).toBe(404);
  });
});
