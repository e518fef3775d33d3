import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerChecker } from '../support/api-answers.js';
import { ApiTestService } from '../support/api-service.js';
import { startLoggedApi } from '../support/logged-api.js';
import type { LogLine } from '../support/log-lines.js';
import { waitFor } from '../support/waiting.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const CAMPAIGN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * The API's edges: what the router refuses before a route is found, methods a path lacks, IDs
 * and bodies a route refuses, the order of the checks (who may call before what the body
 * says), and what the log says about ordinary refusals. Every answer is a problem document.
 */
describe('HTTP API: router refusals, 405, IDs, bodies and check order', () => {
  const api = new ApiTestService('api-edges');
  let lines: LogLine[];
  let cleanup: () => Promise<void>;
  let checker: AnswerChecker;

  beforeAll(async () => {
    ({ lines, cleanup } = await startLoggedApi(api, { API_RATE_LIMIT: '10000' }));
    checker = new AnswerChecker((await (await api.call('/openapi.json', { scope: 'none' })).json()) as object);
  });
  afterAll(async () => {
    const violations = api.checkAnswers();
    await api.close();
    await cleanup();
    expect(violations).toStrictEqual([]);
  });

  const problemOf = async (answer: Response) => {
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await answer.json()) as { code: string; status: number; problems?: { field?: string }[] };
    expect(checker.validator('#/components/schemas/Problem')(body)).toBe(true);
    expect(body.status).toBe(answer.status);
    return body;
  };
  /** Lines at warn or above since `from`, and any naming fastify's reply-already-sent error. */
  const alarms = (from: number) =>
    lines.slice(from).filter((line) => (line.level ?? 0) >= 40 || JSON.stringify(line).includes('FST_ERR_REP_ALREADY_SENT'));

  it('answers an unknown route 404 API_NOT_FOUND and logs nothing about it', async () => {
    const from = lines.length;
    for (const scope of ['read', 'admin'] as const) {
      const answer = await api.call('/no-such-route', { scope });
      expect(answer.status).toBe(404);
      expect(await problemOf(answer)).toMatchObject({ code: 'API_NOT_FOUND' });
    }
    // A request after them: whatever the server logs about the first ones, it has logged by the time it answers this.
    expect((await api.call('/openapi.json', { scope: 'none' })).status).toBe(200);
    expect(alarms(from)).toStrictEqual([]);
  });

  it('states the campaign ID rule in the document, and answers a longer ID 400 after the token is checked', async () => {
    const document = (await (await api.call('/openapi.json', { scope: 'none' })).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: Record<string, unknown> }[] }>>;
    };
    const id = document.paths['/campaigns/{id}']!.get!.parameters!.find((p) => p.in === 'path' && p.name === 'id')!;
    expect(id.schema).toMatchObject({ maxLength: 64, pattern: CAMPAIGN.source });
    for (const length of [65, 101, 150, 200, 5000]) {
      const long = 'c'.repeat(length);
      expect((await api.call(`/campaigns/${long}`, { scope: 'none' })).status).toBe(401);
      const refused = await api.call(`/campaigns/${long}/report`, { scope: 'read' });
      expect(refused.status).toBe(400);
      expect(await problemOf(refused)).toMatchObject({ code: 'API_REQUEST_INVALID', problems: [{ field: 'id' }] });
    }
    const longest = await api.call(`/campaigns/c${'0'.repeat(63)}`, { scope: 'read' });
    expect(await problemOf(longest)).toMatchObject({ status: 404, code: 'CAMPAIGN_NOT_FOUND' });
  });

  it('answers what the router refuses as problem documents: a malformed %-escape (400), a URL too large (431)', async () => {
    const escape = await api.call('/campaigns/%E0%A4%A', { scope: 'read' });
    expect(escape.status).toBe(400);
    expect(await problemOf(escape)).toMatchObject({ code: 'API_REQUEST_INVALID' });
    // Not through call(): no operation documents 431 (the answer comes before any route is found).
    const huge = await fetch(`${api.url}/campaigns?cursor=${'x'.repeat(20_000)}`, {
      headers: { authorization: `Bearer ${api.tokens.read}` },
    });
    expect(huge.status).toBe(431);
    expect(await problemOf(huge)).toMatchObject({ code: 'API_HEADERS_TOO_LARGE' });
  });

  it('answers a method a path lacks 405 with Allow, after the token is checked', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/campaigns/c1', 'GET, HEAD'],
      ['PUT', '/campaigns', 'GET, HEAD, POST'],
      ['GET', '/campaigns/c1/pause', 'POST'],
      ['PATCH', '/optouts', 'DELETE, GET, HEAD, POST'],
    ];
    for (const [method, path, allow] of cases) {
      expect((await api.call(path, { method, scope: 'none' })).status).toBe(401);
      const answer = await api.call(path, { method, scope: 'read' });
      expect(answer.status, `${method} ${path}`).toBe(405);
      expect(answer.headers.get('allow')).toBe(allow);
      expect(await problemOf(answer)).toMatchObject({ code: 'API_METHOD_NOT_ALLOWED' });
    }
    expect((await api.call('/campaigns/c1/unpause', { method: 'POST', scope: 'read' })).status).toBe(404);
  });

  it('refuses a JSON null body (400) where the route takes an object; an absent body is still an empty one', async () => {
    for (const action of ['pause', 'retry', 'reschedule', 'retarget']) {
      const answer = await api.call(`/campaigns/c1/${action}`, { method: 'POST', scope: 'send', body: 'null', headers: JSON_TYPE });
      expect(answer.status, action).toBe(400);
      expect(await problemOf(answer)).toMatchObject({ code: 'API_REQUEST_INVALID', problems: [{ field: 'body' }] });
    }
    for (const action of ['pause', 'retry']) {
      // Past the body: the campaign does not exist.
      const answer = await api.call(`/campaigns/c1/${action}`, { method: 'POST', scope: 'send' });
      expect(await problemOf(answer)).toMatchObject({ status: 404, code: 'CAMPAIGN_NOT_FOUND' });
    }
  });

  it('checks the token and its scope before the body: 401 and 403 come before 400 and 413', async () => {
    const bodies = ['{not json', 'null', JSON.stringify({ reason: 'x'.repeat(2 * 1024 * 1024) })];
    for (const body of bodies) {
      const init = { method: 'POST', body, headers: JSON_TYPE };
      expect((await api.call('/campaigns/c1/pause', { ...init, scope: 'none' })).status).toBe(401);
      const read = await api.call('/campaigns/c1/pause', { ...init, scope: 'read' });
      expect(await problemOf(read)).toMatchObject({ status: 403, code: 'API_SCOPE_REFUSED' });
      const admin = await api.call('/optouts', { ...init, method: 'DELETE', scope: 'send' });
      expect(await problemOf(admin)).toMatchObject({ status: 403, code: 'API_SCOPE_REFUSED' });
    }
    const send = await api.call('/campaigns/c1/pause', { method: 'POST', body: '{not json', headers: JSON_TYPE, scope: 'send' });
    expect(await problemOf(send)).toMatchObject({ status: 400, code: 'API_REQUEST_INVALID' });
  });

  it('logs a client that drops its upload mid-body as one short line, without a stack, below warn', async () => {
    const from = lines.length;
    const socket = connect(api.service!.port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const spec = encodeURIComponent(JSON.stringify({ template: 'order_update', language: 'en_US' }));
    const head = [
      `POST /api/v1/campaigns?spec=${spec} HTTP/1.1`,
      'Host: 127.0.0.1',
      `Authorization: Bearer ${api.tokens.send}`,
      'Content-Type: text/csv',
      'Content-Length: 10000000',
      '',
      '',
    ].join('\r\n');
    socket.write(`${head}phone\n${'+15550001111\n'.repeat(5000)}`);
    // The server is reading the body once it spools it: then the client goes away.
    await waitFor(async () => (await readdir(join(api.reportsDir, '.uploads')).catch(() => [])).length > 0, {
      what: 'the upload spooled in REPORTS_DIR/.uploads',
    });
    socket.destroy();
    const ended = await waitFor(() => lines.slice(from).find((line) => /client closed the connection/.test(line.msg ?? '')), {
      what: 'the log line of the dropped upload',
    });
    expect(ended.level).toBeLessThan(40);
    expect(ended.err).toBeUndefined();
    expect(JSON.stringify(ended)).not.toMatch(/\bat .*\.(?:js|ts):\d+/);
    expect((await api.call('/openapi.json', { scope: 'none' })).status).toBe(200);
    expect(alarms(from)).toStrictEqual([]);
  });
});
