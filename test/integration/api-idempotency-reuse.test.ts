import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { problemSchema } from '../../src/api/problem.js';
import { sendSummarySchema } from '../../src/api/schemas/send-summary-schema.js';
import { IdempotencyStore, idempotencyKeyName } from '../../src/redis/access/idempotency-keys.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { phoneNumber } from '../support/csv-files.js';

const ORDER_UPDATE = { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] };
const SHIPPING = { template: 'shipping_update', language: 'en_US', params: ['first_name', 'order_id', 'order_id'] };

function csvOf(first: number, count: number): string {
  const lines = ['phone,first_name,order_id'];
  for (let i = first; i < first + count; i++) lines.push(`${phoneNumber(i)},Name${i},A-${i}`);
  return lines.join('\n') + '\n';
}

/** An Idempotency-Key names one request: its retry replays the first answer, another request with it is refused. */
describe('HTTP API: an Idempotency-Key reused with another request', () => {
  let api: ApiTestService;
  let ledger: RedisLedger;

  beforeEach(async () => {
    api = await new ApiTestService('api-idem-reuse').start(CAMPAIGN_API_ENV);
    ledger = new RedisLedger(api.redis, api.prefix);
  });
  afterEach(async () => {
    expect(await api.closeChecked()).toStrictEqual([]);
  });

  const postCsv = (csv: string, spec: unknown, key: string, query = '') =>
    api.call(`/campaigns?spec=${encodeURIComponent(JSON.stringify(spec))}${query}`, {
      method: 'POST',
      scope: 'send',
      body: csv,
      headers: { 'content-type': 'text/csv', 'idempotency-key': key },
    });
  const postForm = (csv: string, spec: unknown, fileName: string, key: string) => {
    const form = new FormData();
    form.append('spec', JSON.stringify(spec));
    form.append('file', new Blob([csv], { type: 'text/csv' }), fileName);
    return api.call('/campaigns', { method: 'POST', scope: 'send', body: form, headers: { 'idempotency-key': key } });
  };

  it('answers 422 IDEMPOTENCY_KEY_REUSED naming the first campaign for another file, template or query, and creates nothing', async () => {
    const first = await postCsv(csvOf(1, 2), ORDER_UPDATE, 'crm-batch-7');
    expect(first.status).toBe(201);
    const { id } = sendSummarySchema.parse(await first.json());
    for (const other of [
      () => postCsv(csvOf(10, 2), ORDER_UPDATE, 'crm-batch-7'),
      () => postCsv(csvOf(1, 2), SHIPPING, 'crm-batch-7'),
      () => postCsv(csvOf(1, 2), ORDER_UPDATE, 'crm-batch-7', '&dryRun=true'),
    ]) {
      const answer = await other();
      expect(answer.status).toBe(422);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
      const problem = problemSchema.parse(await answer.json());
      expect(problem).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', problems: [{ field: 'Idempotency-Key' }] });
      expect(problem.detail).toContain(`campaign ${id!}`);
    }
    expect(await ledger.listCampaigns()).toStrictEqual([id]);
  });

  it('still replays the same request: a multipart body sent again (a new boundary) is the same request', async () => {
    const spec = { ...ORDER_UPDATE, name: 'spring' };
    const first = await postForm(csvOf(1, 3), spec, 'spring.csv', 'crm-batch-8');
    expect(first.status).toBe(201);
    const created = sendSummarySchema.parse(await first.json());
    const again = await postForm(csvOf(1, 3), spec, 'spring.csv', 'crm-batch-8');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(sendSummarySchema.parse(await again.json())).toStrictEqual(created);
    // The file's name is part of the request: the campaign is named after it.
    const renamed = await postForm(csvOf(1, 3), spec, 'summer.csv', 'crm-batch-8');
    expect(renamed.status).toBe(422);
    expect(await renamed.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await ledger.listCampaigns()).toStrictEqual([created.id]);
  });

  it('keeps the fingerprint with the key, and replays an answer kept without one as before', async () => {
    const created = await postCsv(csvOf(1, 1), ORDER_UPDATE, 'fresh-key');
    expect(created.status).toBe(201);
    const store = new IdempotencyStore(api.redis, api.prefix);
    const record = await store.claim('token:send', 'fresh-key');
    expect(record?.state).toBe('done');
    expect(record?.state === 'done' ? record.fingerprint : undefined).toMatch(/^[0-9a-f]{64}$/);
    // A key kept before fingerprints were stored: whatever the retry sends, it replays.
    const { answer } = record as { answer: unknown };
    await api.redis.set(idempotencyKeyName(api.prefix, 'token:send', 'kept-key'), JSON.stringify({ state: 'done', answer }));
    const replayed = await postCsv(csvOf(5, 1), ORDER_UPDATE, 'kept-key');
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await ledger.listCampaigns()).toHaveLength(1);
  });
});
