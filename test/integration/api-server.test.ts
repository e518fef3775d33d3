import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { API_ROUTES } from '../../src/api/api-routes.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { ApiTestService } from '../support/api-service.js';

/** The API's frame over real HTTP: who may call it, and how it refuses (RFC 9457 problem documents with stable codes). */
describe('HTTP API: authentication, scopes and problem documents', () => {
  const api = new ApiTestService('api-server');

  beforeAll(async () => {
    await api.start({ API_RATE_LIMIT: '30' });
  });
  afterAll(async () => {
    await api.close();
  });

  it('needs a token even on loopback: 401 API_TOKEN_MISSING as a problem document', async () => {
    const answer = await api.call('/campaigns', { scope: 'none' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await answer.json()).toMatchObject({
      status: 401,
      code: 'API_TOKEN_MISSING',
      type: 'urn:campaign-worker:error:API_TOKEN_MISSING',
      instance: '/api/v1/campaigns',
    });
  });

  it('refuses a revoked token with 401 API_TOKEN_INVALID', async () => {
    const token = (await api.store.create('short-lived', 'read')).token.reveal();
    expect((await fetch(`${api.url}/campaigns`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await api.store.revoke('short-lived');
    const answer = await fetch(`${api.url}/campaigns`, { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ code: 'API_TOKEN_INVALID' });
  });

  it('lists campaigns with a read token, and answers an unknown route with 404 API_NOT_FOUND', async () => {
    const list = await api.call('/campaigns', { scope: 'read' });
    expect(list.status).toBe(200);
    expect(await list.json()).toStrictEqual({ campaigns: [], nextCursor: null });
    const missing = await api.call('/nothing-here', { scope: 'read' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'API_NOT_FOUND' });
  });

  it('reports every problem of a query at once (400 API_REQUEST_INVALID)', async () => {
    const answer = await api.call('/campaigns?state=sleeping&limit=0', { scope: 'read' });
    expect(answer.status).toBe(400);
    const problem = (await answer.json()) as { code: string; problems: { field: string }[] };
    expect(problem.code).toBe('API_REQUEST_INVALID');
    expect(problem.problems.map((p) => p.field).sort()).toStrictEqual(['limit', 'state']);
  });

  it('answers 429 API_RATE_LIMITED with Retry-After once a token passes API_RATE_LIMIT in a minute', async () => {
    const token = (await api.store.create('busy', 'read')).token.reveal();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++)
      statuses.push((await fetch(`${api.url}/campaigns`, { headers: { authorization: `Bearer ${token}` } })).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    const refused = await fetch(`${api.url}/campaigns`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'API_RATE_LIMITED', status: 429 });
    // Another token has its own count.
    expect((await api.call('/campaigns', { scope: 'read' })).status).toBe(200);
  });

  it('serves its OpenAPI document without a token, and nothing else that way', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const first = await api.call('/openapi.json', { scope: 'none' });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await first.text();
    expect(JSON.parse(text)).toStrictEqual(openApiDocument(API_ROUTES, { version }));
    // A token it does not know changes nothing: the document is the same for everyone.
    const again = await api.call('/openapi.json?pretty=1', { scope: 'none', headers: { authorization: 'Bearer cwt_nobody' } });
    expect(await again.text()).toBe(text);
    for (const [method, path] of [
      ['POST', '/openapi.json'],
      ['GET', '/openapi.yaml'],
      ['GET', '/openapi.json/more'],
    ] as const) {
      const refused = await api.call(path, { scope: 'none', method });
      expect(refused.status, `${method} ${path}`).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'API_TOKEN_MISSING' });
    }
  });

  // Last: every answer of call() above, against the OpenAPI document.
  it('answered every call as its OpenAPI document says', () => {
    expect(api.answers.length).toBeGreaterThan(5);
    expect(api.checkAnswers()).toStrictEqual([]);
  });
});
