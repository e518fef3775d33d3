import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUSINESS_ACCOUNT_IDS, type Sandbox } from '../../src/sandbox/index.js';
import { templateListSchema } from '../../src/templates/template-schema.js';
import { TOKEN, getJson, startTestSandbox, type JsonReply } from './sandbox-helpers.js';

/** `GET /{version}/{waba-id}/message_templates` over real HTTP. */
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

const WABA = DEFAULT_BUSINESS_ACCOUNT_IDS[0] ?? '';
const listUrl = (query = '', wabaId = WABA) => `${sandbox.url}/v23.0/${wabaId}/message_templates${query}`;

describe('sandbox templates list', () => {
  it("returns every template in Meta's list shape on one default page", async () => {
    const reply = await getJson(listUrl());
    expect(reply.status).toBe(200);
    const list = templateListSchema.parse(reply.body);
    expect(list.data.map((t) => t.name)).toContain('order_update');
    expect(list.paging?.next).toBeUndefined();
    expect(list.paging?.cursors?.after).toEqual(expect.any(String));
  });

  it('pages by following paging.next until it is absent', async () => {
    const all = (await getJson(listUrl())).body.data ?? [];
    const seen: string[] = [];
    let url: string | undefined = listUrl('?limit=2');
    let pages = 0;
    while (url !== undefined) {
      const reply: JsonReply = await getJson(url);
      expect(reply.status).toBe(200);
      const data = reply.body.data ?? [];
      expect(data.length).toBeLessThanOrEqual(2);
      seen.push(...data.map((t) => `${t.name}/${t.language}`));
      url = reply.body.paging?.next;
      if (url !== undefined) expect(url.startsWith(sandbox.url)).toBe(true);
      pages++;
    }
    expect(seen).toEqual(all.map((t) => `${t.name}/${t.language}`));
    expect(pages).toBe(Math.ceil(all.length / 2));
  });

  it('filters by status and name', async () => {
    const paused = await getJson(listUrl('?status=PAUSED'));
    expect(paused.body.data?.map((t) => t.status)).toEqual(['PAUSED']);
    const named = await getJson(listUrl('?name=appointment_reminder_named'));
    expect(named.body.data?.map((t) => t.name)).toEqual(['appointment_reminder_named']);
  });

  it("answers only the fields asked for (and id); Graph's default fields without `fields`", async () => {
    const asked = await getJson<{ data: Record<string, unknown>[] }>(listUrl('?fields=name,status&name=order_update'));
    expect(asked.status).toBe(200);
    expect(asked.body.data.length).toBeGreaterThan(0);
    for (const item of asked.body.data) expect(Object.keys(item).sort()).toEqual(['id', 'name', 'status']);
    const defaults = await getJson<{ data: Record<string, unknown>[] }>(listUrl());
    const allowed = ['name', 'parameter_format', 'components', 'language', 'status', 'category', 'id', 'sub_category', 'previous_category'];
    for (const item of defaults.body.data) expect(allowed).toEqual(expect.arrayContaining(Object.keys(item)));
    expect((await getJson(listUrl('?fields='))).body.error?.code).toBe(100);
    const misspelt = await getJson(listUrl('?fields=name,catgory'));
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.error).toMatchObject({ code: 100, type: 'OAuthException' });
    expect(misspelt.body.error?.message).toMatch(/nonexisting field \(catgory\)/);
  });

  it('answers an unknown WABA as Graph answers an object it cannot load: 400 / 100, subcode 33, GraphMethodException', async () => {
    const reply = await getJson(listUrl('', '102290129340398'));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 100, error_subcode: 33, type: 'GraphMethodException' });
    expect(reply.body.error?.message).toMatch(/^Unsupported get request\. Object with ID '102290129340398' does not exist/);
    expect(reply.body.error).not.toHaveProperty('error_data');
    const own = await startTestSandbox({ businessAccountIds: ['102290129340398'] });
    try {
      expect((await getJson(`${own.url}/v23.0/102290129340398/message_templates`)).status).toBe(200);
      expect((await getJson(`${own.url}/v23.0/${WABA}/message_templates`)).body.error?.error_subcode).toBe(33);
    } finally {
      await own.close();
    }
  });

  it('answers 104 without a token, 190 for a wrong one and 400 / 100 for a bad limit or cursor', async () => {
    expect((await getJson(listUrl(), null)).body.error?.code).toBe(104);
    expect((await getJson(listUrl(), 'wrong')).body.error?.code).toBe(190);
    const badLimit = await getJson(listUrl('?limit=zero'));
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error?.code).toBe(100);
    expect((await getJson(listUrl('?after=bogus'))).body.error?.code).toBe(100);
  });
});

describe('sandbox template time-to-live (POST /{template-id})', () => {
  const post = async (id: string, body: unknown) => {
    const response = await fetch(`${sandbox.url}/v25.0/${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { success?: boolean; error?: { code: number; message: string } } };
  };
  const SPRING_PROMO = '1002003004005004';
  const ORDER_UPDATE = '1002003004005001';

  it("sets a template's TTL within its category's range, and the list shows it", async () => {
    expect(await post(SPRING_PROMO, { message_send_ttl_seconds: 129_600 })).toEqual({ status: 200, body: { success: true } });
    const listed = await getJson<{ data: Record<string, unknown>[] }>(listUrl('?fields=name,message_send_ttl_seconds&name=spring_promo'));
    expect(listed.body.data[0]).toMatchObject({ name: 'spring_promo', message_send_ttl_seconds: 129_600 });
    expect((await post(ORDER_UPDATE, { message_send_ttl_seconds: 600 })).status).toBe(200);
  });

  it('refuses a TTL outside the range, another edit, a missing value and an unknown ID as Graph does', async () => {
    for (const [id, body] of [
      [SPRING_PROMO, { message_send_ttl_seconds: 3600 }],
      [ORDER_UPDATE, { message_send_ttl_seconds: 86_400 }],
      [SPRING_PROMO, { message_send_ttl_seconds: '129600' }],
      [SPRING_PROMO, { category: 'UTILITY' }],
      [SPRING_PROMO, {}],
    ] as const) {
      const reply = await post(id, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error?.code, JSON.stringify(body)).toBe(100);
    }
    const unknown = await post('999999999', { message_send_ttl_seconds: 129_600 });
    expect(unknown.body.error).toMatchObject({ code: 100, error_subcode: 33, type: 'GraphMethodException' });
  });
});
