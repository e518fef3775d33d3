import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dryRunSummarySchema, sendSummarySchema } from '../../src/api/schemas/send-summary-schema.js';
import { problemSchema } from '../../src/api/problem.js';
import { packageRoot } from '../../src/files/package-root.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { phoneNumber } from '../support/csv-files.js';

const SPEC = { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] };

/** `valid` good rows, then `refused` rows with a number that is not one. */
function csvOf(valid: number, refused: number): string {
  const lines = ['phone,first_name,order_id'];
  for (let i = 1; i <= valid; i++) lines.push(`${phoneNumber(i)},Name${i},A-${i}`);
  for (let i = 1; i <= refused; i++) lines.push(`12${i},Bad${i},B-${i}`);
  return lines.join('\n') + '\n';
}

/** Every entry below `dir`, as paths relative to it, sorted. */
async function listing(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

/** Each string of an answer (its body's values, its headers) that names a place on this host's disk. */
function hostPaths(texts: readonly string[], places: readonly string[]): string[] {
  return texts.filter((text) => places.some((place) => text.includes(place)));
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsOf);
  return [];
}

/** A dry run over the API writes nothing that outlives it: its refused rows come in the answer, and no answer names a host path. */
describe('HTTP API: a dry run leaves nothing behind', () => {
  let api: ApiTestService;
  let ledger: RedisLedger;
  /** Every answer's strings and headers, for the path check. */
  const said: string[] = [];

  beforeEach(async () => {
    api = await new ApiTestService('api-dry-run').start(CAMPAIGN_API_ENV);
    ledger = new RedisLedger(api.redis, api.prefix);
    said.length = 0;
  });
  afterEach(async () => {
    expect(await api.closeChecked()).toStrictEqual([]);
  });

  const post = async (path: string, init: RequestInit): Promise<{ status: number; body: unknown }> => {
    const answer = await api.call(path, { method: 'POST', scope: 'send', ...init });
    const body: unknown = await answer.json();
    said.push(...stringsOf(body), ...[...answer.headers.values()]);
    return { status: answer.status, body };
  };
  const postCsv = (csv: string, spec: unknown, query = '') =>
    post(`/campaigns?spec=${encodeURIComponent(JSON.stringify(spec))}${query}`, { body: csv, headers: { 'content-type': 'text/csv' } });
  const places = () => [api.reportsDir, tmpdir(), packageRoot(), process.cwd()];

  it('answers the first 20 refused rows and their count, and REPORTS_DIR is as it was after every dry run', async () => {
    const before = await listing(api.reportsDir);
    const byQuery = await postCsv(csvOf(3, 25), SPEC, '&dryRun=true');
    expect(byQuery.status).toBe(200);
    const plan = dryRunSummarySchema.strict().parse(byQuery.body);
    expect(plan).toMatchObject({ id: null, dryRun: true, rows: 28, valid: 3, rejected: 25, rejectsFile: null, rejectsTotal: 25 });
    expect(plan.rejects).toHaveLength(20);
    expect(plan.rejects[0]).toMatchObject({ row: 4, phone: '121', reason: 'PHONE_INVALID' });
    expect(await listing(api.reportsDir)).toStrictEqual(before);

    const bySpec = await postCsv(csvOf(1, 2), { ...SPEC, dryRun: true });
    expect(bySpec.status).toBe(200);
    expect(dryRunSummarySchema.parse(bySpec.body)).toMatchObject({ rejectsTotal: 2, rejectsFile: null });
    expect(await listing(api.reportsDir)).toStrictEqual(before);

    const form = new FormData();
    form.append('spec', JSON.stringify({ ...SPEC, dryRun: true }));
    form.append('file', new Blob([csvOf(2, 1)], { type: 'text/csv' }), 'spring.csv');
    const multipart = await post('/campaigns', { body: form });
    expect(multipart.status).toBe(200);
    expect(dryRunSummarySchema.parse(multipart.body)).toMatchObject({ name: 'spring', rejectsTotal: 1 });
    expect(await listing(api.reportsDir)).toStrictEqual(before);

    // A refused dry run leaves nothing either.
    const refused = await postCsv(csvOf(1, 1), { ...SPEC, priority: 'urgent', dryRun: true });
    expect(refused.status).toBe(422);
    expect(await listing(api.reportsDir)).toStrictEqual(before);
    expect(await ledger.listCampaigns()).toStrictEqual([]);
    expect(hostPaths(said, places())).toStrictEqual([]);
  });

  it('names files without their host path when a campaign is created, refused or its file is wrong', async () => {
    const created = await postCsv(csvOf(2, 1), SPEC);
    expect(created.status).toBe(201);
    const summary = sendSummarySchema.strict().parse(created.body);
    expect(summary.rejectsFile).toBe(`${summary.id}.rejects.csv`);
    expect(summary.plan.rateCard).toMatch(/^[^/\\]+\.csv$/);
    // The rejects file it names is the one the API serves.
    const rejects = await api.call(`/campaigns/${summary.id}/rejects?format=json`, { scope: 'read' });
    expect(await rejects.json()).toMatchObject({ rows: [{ row: 3, phone: '121' }] });

    const missing = await postCsv(csvOf(1, 0), { ...SPEC, params: ['first_name', 'order_no'], maxCost: 0.0001 });
    expect(missing.status).toBe(422);
    expect(problemSchema.parse(missing.body).problems?.map((p) => p.column)).toContain('order_no');
    const tooDear = await postCsv(csvOf(2, 0), { ...SPEC, maxCost: 0.0001 });
    expect(tooDear.status).toBe(422);
    expect(problemSchema.parse(tooDear.body)).toMatchObject({ code: 'COST_ABOVE_MAX', problems: [{ field: 'maxCost' }] });
    expect(hostPaths(said, places())).toStrictEqual([]);
    // The check can fail: the places are in what the service knows.
    expect(hostPaths([join(api.reportsDir, 'x.csv')], places())).toHaveLength(1);
  });
});
