import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { problemSchema, type Problem } from '../../src/api/problem.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { phoneNumber } from '../support/csv-files.js';

const CSV = `phone,first_name,order_id\n${phoneNumber(1)},Ana,A-1\n`;

/** Every field of a campaign wrong at once: each is a problem of its own. */
const EVERY_FIELD_WRONG = {
  name: 'x'.repeat(150),
  template: 'order_update',
  language: 'xx_XX',
  previewUrl: 'yes',
  phoneColumn: 'mobile',
  params: ['first_name', 'order_no'],
  fixWhitespace: 'yes',
  defaultCountry: 'XX',
  delimiter: 'x',
  at: 'next tuesday',
  startDeadline: 'soon',
  expiresAt: 'later',
  validFor: 'forever',
  window: '25:00-26:00',
  days: 'someday',
  defaultTimezone: 'Mars/Base',
  priority: 'urgent',
  phoneNumberId: 'abc',
  campaign: '!!',
  allowRepeat: 'yes',
  allowUsMarketing: 1,
  endpoint: 'sms',
  ttl: '1m',
  displayTimezone: 'Nowhere',
  dryRun: 'maybe',
  maxCost: 'lots',
  colour: 'red',
};

/** Where each problem is: its field, or `column X`. */
function named(problem: Problem): string[] {
  return (problem.problems ?? []).map((p) => p.field ?? `column ${p.column ?? '(none)'}`).sort();
}

/** A refused request answers one 422 listing every problem of its spec, header and template, each with its field or column. */
describe('HTTP API: every problem of a campaign at once', () => {
  let api: ApiTestService;
  let ledger: RedisLedger;

  beforeEach(async () => {
    api = await new ApiTestService('api-every-problem').start(CAMPAIGN_API_ENV);
    ledger = new RedisLedger(api.redis, api.prefix);
  });
  afterEach(async () => {
    expect(await api.closeChecked()).toStrictEqual([]);
  });

  const post = async (spec: unknown): Promise<{ status: number; problem: Problem }> => {
    const answer = await api.call(`/campaigns?spec=${encodeURIComponent(JSON.stringify(spec))}`, {
      method: 'POST',
      scope: 'send',
      body: CSV,
      headers: { 'content-type': 'text/csv' },
    });
    return { status: answer.status, problem: problemSchema.parse(await answer.json()) };
  };

  it('lists every wrong field, the columns the header lacks and the template in one 422', async () => {
    const { status, problem } = await post(EVERY_FIELD_WRONG);
    expect(status).toBe(422);
    expect(problem.code).toBe('SPEC_INVALID');
    const fields = Object.keys(EVERY_FIELD_WRONG).filter((field) => !['template', 'params', 'phoneColumn'].includes(field));
    // The template exists, not in xx_XX: the language is the field to change.
    expect(named(problem)).toStrictEqual([...fields, 'column mobile', 'column order_no'].sort());
    expect(problem.problems?.find((p) => p.field === 'language')?.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(await ledger.listCampaigns()).toStrictEqual([]);
  });

  it("lists a spec's problems with the template's own, each naming a field", async () => {
    const { status, problem } = await post({ template: 'order_update', language: 'en_US', params: ['first_name'], priority: 'urgent' });
    expect(status).toBe(422);
    expect(problem.problems?.map((p) => [p.code, p.field])).toStrictEqual([
      ['OPTION_INVALID', 'priority'],
      ['TEMPLATE_MAPPING_INVALID', 'params'],
      // body.2 has no column: add it to params (or map it with param body.2=COLUMN).
      ['TEMPLATE_SLOT_UNFILLED', 'params'],
    ]);
  });

  it('answers TEMPLATE_MAPPING_INVALID with its problems, each naming its field, when it is the only problem', async () => {
    const unknown = await post({ template: 'no_such_template', language: 'en_US' });
    expect(unknown.status).toBe(422);
    expect(unknown.problem).toMatchObject({ code: 'TEMPLATE_MAPPING_INVALID', problems: [{ field: 'template' }] });
    const short = await post({ template: 'order_update', language: 'en_US', params: ['first_name'] });
    expect(short.problem.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(short.problem.problems?.length).toBeGreaterThan(0);
    expect(short.problem.problems?.every((p) => p.field !== undefined || p.column !== undefined)).toBe(true);
  });

  it('lists a wrong endpoint for the template beside the other problems', async () => {
    const { problem } = await post({
      template: 'order_update',
      language: 'en_US',
      params: ['first_name', 'order_id'],
      endpoint: 'marketing-messages',
      days: 'mon',
    });
    expect(named(problem)).toStrictEqual(['days', 'endpoint']);
  });
});
