import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyStore } from '../../src/redis/access/idempotency-keys.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { dryRunSummarySchema, sendSummarySchema } from '../../src/api/schemas/send-summary-schema.js';
import { problemSchema } from '../../src/api/problem.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { phoneNumber } from '../support/csv-files.js';

const SPEC = { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] };
const MAX_UPLOAD = 4096;

function csvOf(count: number, extra: string[] = []): string {
  const lines = ['phone,first_name,order_id'];
  for (let i = 1; i <= count; i++) lines.push(`${phoneNumber(i)},Name${i},A-${i}`);
  return [...lines, ...extra].join('\n') + '\n';
}

/** `POST /api/v1/campaigns` over real HTTP: `campaign send` with the CSV uploaded, streamed to disk. */
describe('HTTP API: create a campaign from an upload', () => {
  let api: ApiTestService;
  let ledger: RedisLedger;

  beforeEach(async () => {
    api = await new ApiTestService('api-create').start({
      ...CAMPAIGN_API_ENV,
      API_MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
    });
    ledger = new RedisLedger(api.redis, api.prefix);
  });
  afterEach(async () => {
    // Every answer of the test, as the OpenAPI document describes it.
    expect(await api.closeChecked()).toStrictEqual([]);
  });

  /** The upload spools left in REPORTS_DIR/.uploads: each request removes its own. */
  const spools = async () => readdir(join(api.reportsDir, '.uploads')).catch(() => []);

  const postCsv = (
    csv: string | ReadableStream<Uint8Array>,
    spec: unknown,
    init: { scope?: 'read' | 'send'; query?: string; headers?: Record<string, string> } = {},
  ) =>
    api.call(`/campaigns?spec=${encodeURIComponent(JSON.stringify(spec))}${init.query ?? ''}`, {
      method: 'POST',
      scope: init.scope ?? 'send',
      body: csv,
      headers: { 'content-type': 'text/csv', ...init.headers },
      ...(csv instanceof ReadableStream ? { duplex: 'half' } : {}),
    });

  it('creates a campaign from a text/csv body with a send token: 201, Location, the summary, rows in the ledger', async () => {
    const answer = await postCsv(csvOf(3), SPEC);
    expect(answer.status).toBe(201);
    const body = sendSummarySchema.strict().parse(await answer.json());
    expect(body).toMatchObject({ dryRun: false, rows: 3, queued: 3, rejected: 0, name: 'upload' });
    expect(answer.headers.get('location')).toBe(`/api/v1/campaigns/${body.id}`);
    expect(await ledger.listCampaigns()).toStrictEqual([body.id]);
    expect((await ledger.status(body.id!))?.counts.total).toBe(3);
    const definition = await ledger.getCampaign(body.id!);
    expect(definition?.name).toBe('upload');
    expect(definition?.source.file).toBe('upload.csv');
    expect(await spools()).toStrictEqual([]);
  });

  it('creates a campaign from multipart/form-data, the spec after the file, named after the uploaded file', async () => {
    const form = new FormData();
    form.append('file', new Blob([csvOf(2)], { type: 'text/csv' }), 'spring orders.csv');
    form.append('spec', JSON.stringify({ ...SPEC, priority: 'high' }));
    const answer = await api.call('/campaigns', { method: 'POST', scope: 'send', body: form });
    expect(answer.status).toBe(201);
    const body = sendSummarySchema.strict().parse(await answer.json());
    expect(body).toMatchObject({ rows: 2, queued: 2, name: 'spring orders' });
    const definition = await ledger.getCampaign(body.id!);
    expect(definition).toMatchObject({ name: 'spring orders', priority: 'high', source: { file: 'spring orders.csv' } });
  });

  it('takes the spec as a JSON part or as a file part, as curl -F sends them', async () => {
    for (const spec of [
      new Blob([JSON.stringify(SPEC)], { type: 'application/json' }),
      new File([JSON.stringify({ ...SPEC, name: 'from a file part' })], 'spec.json', { type: 'application/json' }),
    ]) {
      const form = new FormData();
      form.append('spec', spec);
      form.append('file', new Blob([csvOf(1)], { type: 'text/csv' }), 'orders.csv');
      const answer = await api.call('/campaigns', { method: 'POST', scope: 'send', body: form });
      expect(answer.status).toBe(201);
    }
    const names = await Promise.all((await ledger.listCampaigns()).map(async (id) => (await ledger.getCampaign(id))?.name));
    expect(names.sort()).toStrictEqual(['from a file part', 'orders']);
  });

  it('refuses a read token (403 API_SCOPE_REFUSED) and creates nothing', async () => {
    const answer = await postCsv(csvOf(1), SPEC, { scope: 'read' });
    expect(answer.status).toBe(403);
    expect(problemSchema.parse(await answer.json())).toMatchObject({ code: 'API_SCOPE_REFUSED' });
    expect(await ledger.listCampaigns()).toStrictEqual([]);
  });

  it('refuses an upload over API_MAX_UPLOAD_BYTES with 413, declared, streamed or multipart, and creates nothing', async () => {
    const big = csvOf(200);
    expect(big.length).toBeGreaterThan(MAX_UPLOAD);
    const declared = await postCsv(big, SPEC);
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ code: 'API_UPLOAD_TOO_LARGE', status: 413 });
    // No Content-Length: the bytes are counted as they come.
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 1000) controller.enqueue(bytes.slice(at, at + 1000));
        controller.close();
      },
    });
    const streamed = await postCsv(stream, SPEC);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ code: 'API_UPLOAD_TOO_LARGE' });
    const form = new FormData();
    form.append('spec', JSON.stringify(SPEC));
    form.append('file', new Blob([big], { type: 'text/csv' }), 'big.csv');
    const multipart = await api.call('/campaigns', { method: 'POST', scope: 'send', body: form });
    expect(multipart.status).toBe(413);
    expect(await multipart.json()).toMatchObject({ code: 'API_UPLOAD_TOO_LARGE' });
    expect(await ledger.listCampaigns()).toStrictEqual([]);
    expect(await spools()).toStrictEqual([]);
    // A small upload still goes through afterwards.
    expect((await postCsv(csvOf(1), SPEC)).status).toBe(201);
  });

  it('answers a retry with the same Idempotency-Key with the first answer, and creates one campaign', async () => {
    const headers = { 'idempotency-key': 'order-batch-42' };
    const first = await postCsv(csvOf(2), SPEC, { headers });
    expect(first.status).toBe(201);
    const created = (await first.json()) as { id: string };
    const again = await postCsv(csvOf(2), SPEC, { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await again.json()).toStrictEqual(created);
    expect(await ledger.listCampaigns()).toStrictEqual([created.id]);
    // Another caller's same key is its own.
    expect((await api.call('/campaigns', { scope: 'admin' })).status).toBe(200);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while the key is at work, and frees a key whose request failed', async () => {
    const store = new IdempotencyStore(api.redis, api.prefix);
    expect(await store.claim('token:send', 'busy-key')).toBeUndefined();
    const busy = await postCsv(csvOf(1), SPEC, { headers: { 'idempotency-key': 'busy-key' } });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    const refused = await postCsv(csvOf(1), { ...SPEC, priority: 'urgent' }, { headers: { 'idempotency-key': 'retry-me' } });
    expect(refused.status).toBe(422);
    const retried = await postCsv(csvOf(1), SPEC, { headers: { 'idempotency-key': 'retry-me' } });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await ledger.listCampaigns()).toHaveLength(1);
  });

  it('answers a dry run with the plan and the first refused rows, and creates nothing', async () => {
    const csv = csvOf(3, ['12345,Bad,A-9', `${phoneNumber(9)},,A-10`]);
    const answer = await postCsv(csv, SPEC, { query: '&dryRun=true' });
    expect(answer.status).toBe(200);
    const body = dryRunSummarySchema.strict().parse(await answer.json());
    expect(body).toMatchObject({ id: null, dryRun: true, rows: 5, valid: 3, queued: 0, rejected: 2 });
    expect(body.rejects).toHaveLength(2);
    expect(body.rejects[0]).toMatchObject({ row: 4, phone: '12345', reason: 'PHONE_INVALID' });
    expect(body.rejects[1]).toMatchObject({ row: 5, column: 'first_name' });
    expect(body.plan.messagingLimit).not.toBeNull();
    expect(await ledger.listCampaigns()).toStrictEqual([]);
    // The spec's own dryRun does the same.
    const bySpec = await postCsv(csvOf(1), { ...SPEC, dryRun: true });
    expect(bySpec.status).toBe(200);
    expect(await ledger.listCampaigns()).toStrictEqual([]);
  });

  it('answers 422 naming every problem of the spec and the header at once, by field and column', async () => {
    const spec = {
      template: 'order_update',
      language: 'en_US',
      params: ['first_name', 'order_no'],
      at: 'next tuesday',
      priority: 'urgent',
      days: 'mon-fri',
      prioritty: 'high',
      maxCost: 'lots',
    };
    const answer = await postCsv(csvOf(2), spec);
    expect(answer.status).toBe(422);
    const problem = problemSchema.parse(await answer.json());
    expect(problem.code).toBe('SPEC_INVALID');
    const named = (problem.problems ?? []).map((p) => p.field ?? `column ${p.column ?? '?'}`).sort();
    expect(named).toStrictEqual(['at', 'column order_no', 'days', 'maxCost', 'prioritty', 'priority']);
    expect(problem.problems?.every((p) => p.detail.length > 0 && !p.detail.includes('campaign-upload-'))).toBe(true);
    expect(await ledger.listCampaigns()).toStrictEqual([]);
  });

  it("names each column a template's variables need that the file lacks (422 TEMPLATE_MAPPING_INVALID)", async () => {
    const spec = { template: 'appointment_reminder_named', language: 'en_US' };
    const answer = await postCsv(`phone,name\n${phoneNumber(1)},Ana\n`, spec);
    expect(answer.status).toBe(422);
    const problem = problemSchema.parse(await answer.json());
    expect(problem.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problem.detail).toMatch(/^Template appointment_reminder_named \(en_US\) cannot be sent from this file:/);
    expect(problem.problems?.map((p) => p.column)).toStrictEqual(['first_name', 'appointment_time']);
    expect(await ledger.listCampaigns()).toStrictEqual([]);
  });
});
