import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CapturedExchange, CapturedLine, CapturedWebhook } from '../../src/sandbox/index.js';
import { checkCaptures, type CaptureFile, type Finding } from '../support/capture-check.js';
import { OVERLAY } from '../support/openapi-overlay.js';
import { strictSchemaErrors } from '../support/openapi-schemas.js';

/**
 * The suite-wide capture check (test/captured, test/support/capture-check.ts) fed synthetic
 * captures: what it must catch, so that its "0 invalid" means something, and what it must
 * let through (Meta's own example answers and webhooks, tests' malformed requests).
 */
type Json = Record<string, unknown>;

const PRODUCT = 'campaign-worker/0.2.0';
const NUMBER = '106540352242922';
const WABA = '100000000000001';
const PAGE = (file: string): string => readFileSync(new URL(`../fixtures/meta-pages/${file}`, import.meta.url), 'utf8');
const pageJson = (file: string): Json => JSON.parse(PAGE(file)) as Json;

function exchange(overrides: Partial<CapturedExchange>): CapturedExchange {
  return {
    kind: 'exchange',
    at: '2026-11-29T00:00:00.000Z',
    method: 'POST',
    path: `/v25.0/${NUMBER}/messages`,
    query: {},
    userAgent: PRODUCT,
    contentType: 'application/json',
    status: 200,
    ...overrides,
  };
}

const webhook = (payload: unknown): CapturedWebhook => ({
  kind: 'webhook',
  at: '2026-11-29T00:00:00.000Z',
  url: 'http://127.0.0.1:8080/webhook',
  payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
});

function check(lines: CapturedLine[], options: { raw?: string[]; unterminated?: boolean } = {}): { findings: Finding[]; invalid: number } {
  const file: CaptureFile = {
    name: 'sandbox-1-2.ndjson',
    lines: [...lines.map((line) => JSON.stringify(line)), ...(options.raw ?? [])],
    unterminated: options.unterminated ?? false,
  };
  const report = checkCaptures([file]);
  return { findings: report.findings, invalid: [...report.counts.values()].reduce((sum, c) => sum + c.invalid, 0) };
}

const templateSend = {
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to: '+447700900123',
  type: 'template',
  template: {
    name: 'order_update',
    language: { code: 'en_US' },
    components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }],
  },
};
const accepted = {
  messaging_product: 'whatsapp',
  contacts: [{ input: '+447700900123', wa_id: '447700900123' }],
  messages: [{ id: 'wamid.HBgMNDQ3NzAwOTAwMTIzFQIAERgSMDAwAA==', message_status: 'accepted' }],
};
const statusSent = pageJson('status-page.sent-marketing.json');

describe('what the check lets through', () => {
  it('a send of ours with its answer, a template list, a messaging limit and a status webhook', () => {
    const { findings, invalid } = check([
      exchange({ body: { ...templateSend, biz_opaque_callback_data: 'c1/1' }, answer: accepted }),
      exchange({
        method: 'GET',
        path: `/v25.0/${WABA}/message_templates`,
        query: { fields: 'name,language,status,category,components', limit: '100' },
        contentType: null,
        answer: { data: [{ name: 'order_update', language: 'en_US', status: 'APPROVED', category: 'UTILITY', id: '1' }] },
      }),
      exchange({
        method: 'GET',
        path: `/${NUMBER}`,
        query: { fields: 'whatsapp_business_manager_messaging_limit' },
        contentType: null,
        answer: { id: NUMBER, whatsapp_business_manager_messaging_limit: 'TIER_10K' },
      }),
      webhook(statusSent),
    ]);
    expect(findings).toEqual([]);
    expect(invalid).toBe(0);
  });

  it("a test's own malformed request is not checked, but the sandbox's answer to it is", () => {
    const error = { error: { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100, fbtrace_id: 'Ab1' } };
    expect(check([exchange({ userAgent: 'undici', body: { to: 42 }, status: 400, answer: error })]).findings).toEqual([]);
    const { findings } = check([exchange({ userAgent: null, body: { to: 42 }, status: 400, answer: { error: 'bad' } })]);
    expect(findings.map((f) => f.what)).toEqual(['answer']);
  });

  it('a request held unanswered is checked as a request, with no answer', () => {
    expect(check([exchange({ body: templateSend, status: null })]).findings).toEqual([]);
  });

  it('a last line half-written by a process ended mid-write is not a finding; an unreadable line elsewhere is', () => {
    expect(check([exchange({ body: templateSend, answer: accepted })], { raw: ['{"kind":"exch'], unterminated: true }).findings).toEqual(
      [],
    );
    const { findings } = check([exchange({ body: templateSend, answer: accepted })], { raw: ['{"kind":"exch', '{}'] });
    expect(findings.map((f) => `${f.what} ${f.where}`)).toEqual(['capture sandbox-1-2.ndjson:2', 'capture sandbox-1-2.ndjson:3']);
  });
});

describe('what the check catches', () => {
  const errorsOf = (findings: Finding[]): string => findings.flatMap((f) => [`${f.what} ${f.operation}`, ...f.errors]).join('\n');

  it('a request of ours to a path the OpenAPI does not have', () => {
    const { findings } = check([exchange({ path: `/v25.0/${NUMBER}/messagez`, body: templateSend, status: 400, answer: undefined })]);
    expect(errorsOf(findings)).toContain(`no operation of the OpenAPI is POST /v25.0/${NUMBER}/messagez`);
  });

  it('a query parameter the operation does not declare', () => {
    const { findings } = check([
      exchange({
        method: 'GET',
        path: `/v25.0/${WABA}/message_templates`,
        query: { limit: '100', sort: 'name' },
        contentType: null,
        answer: { data: [] },
      }),
    ]);
    expect(errorsOf(findings)).toContain('query parameter sort is not declared for GET /{Version}/{WABA-ID}/message_templates');
  });

  it('a Marketing Messages API send with biz_opaque_callback_data', () => {
    const { findings } = check([
      exchange({
        path: `/v25.0/${NUMBER}/marketing_messages`,
        body: { ...templateSend, biz_opaque_callback_data: 'c1/1' },
        answer: accepted,
      }),
    ]);
    expect(findings.map((f) => f.what)).toEqual(['request']);
    expect(errorsOf(findings)).toContain('must NOT have additional properties: biz_opaque_callback_data [MarketingMessageRequestPayload]');
  });

  it('a send of ours that its walk refuses (a header with two parameters)', () => {
    const body = structuredClone(templateSend) as Json;
    (body.template as { components: unknown[] }).components.unshift({
      type: 'header',
      parameters: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    });
    const { findings } = check([exchange({ body, answer: accepted })]);
    expect(errorsOf(findings)).toContain('a header takes exactly one parameter [reference §1.4]');
  });

  it('a send of ours with a field no schema declares, deep inside (a misspelt parameter_name)', () => {
    const body = structuredClone(templateSend) as { template: { components: { parameters: Json[] }[] } };
    const parameter = body.template.components[0]?.parameters[0];
    if (parameter === undefined) throw new Error('no parameter');
    parameter.parameter_nam = 'first_name';
    const { findings } = check([exchange({ body, answer: accepted })]);
    expect(errorsOf(findings)).toContain('/template/components/0/parameters/0 must NOT have unevaluated properties: parameter_nam');
  });

  it('a send of ours with a Content-Type the operation does not take', () => {
    const { findings } = check([exchange({ contentType: 'text/plain', body: templateSend, answer: accepted })]);
    expect(errorsOf(findings)).toContain('header Content-Type "text/plain" is not one of application/json');
  });

  it('a status webhook with a misspelt field', () => {
    const misspelt = structuredClone(statusSent) as { entry: { changes: { value: { statuses: Json[] } }[] }[] };
    const status = misspelt.entry[0]?.changes[0]?.value.statuses[0];
    if (status === undefined) throw new Error('no status in the example');
    status.biz_opaque_calback_data = 'c1/1';
    const { findings } = check([webhook(misspelt)]);
    expect(findings.map((f) => `${f.what} ${f.operation}`)).toEqual(['webhook webhook messages']);
    expect(errorsOf(findings)).toContain('must NOT have unevaluated properties: biz_opaque_calback_data');
  });

  it('an error answer without error.code', () => {
    const { findings } = check([
      exchange({ body: templateSend, status: 400, answer: { error: { message: '(#100) Invalid parameter', type: 'OAuthException' } } }),
    ]);
    expect(findings.map((f) => f.what)).toEqual(['answer']);
    expect(errorsOf(findings)).toContain("/error must have required property 'code' [POST /{Version}/{Phone-Number-ID}/messages default]");
  });

  it('an answer with a field the operation does not declare, and a status it does not answer', () => {
    const { findings } = check([
      exchange({ body: templateSend, answer: { ...accepted, messages: [{ id: 'wamid.X', message_status: 'accepted', sent: true }] } }),
      exchange({ body: templateSend, status: 204, answer: undefined }),
    ]);
    expect(errorsOf(findings)).toContain('/messages/0 must NOT have unevaluated properties: sent');
    expect(errorsOf(findings)).toContain('status 204 is not an answer POST /{Version}/{Phone-Number-ID}/messages declares');
  });

  it('a success on a path the OpenAPI does not have', () => {
    const { findings } = check([exchange({ userAgent: null, path: '/v25.0/1/unheard_of', answer: { ok: true } })]);
    expect(errorsOf(findings)).toContain('answered 200 on a path the OpenAPI does not have');
  });

  it('a webhook of a field nobody defines', () => {
    const payload = { object: 'whatsapp_business_account', entry: [{ id: WABA, changes: [{ field: 'user_id_update', value: {} }] }] };
    expect(errorsOf(check([webhook(payload)]).findings)).toContain('/entry/0/changes/0/field must be equal to one of the allowed values');
  });
});

describe("Meta's own examples pass the check (test/fixtures/meta-pages)", () => {
  // Superseded or retracted by a newer version of the same page (SOURCES.md): the overlay follows the newest.
  const SET_ASIDE: Record<string, string> = {
    'bsuid-2025-11.': 'the November 2025 version of the business-scoped user ID page (user.… IDs, profile.country_code), superseded',
    'bsuid-2026.user-id-update.': 'user_id_update is not a webhook field (changelog of 2026-08-11, SOURCES.md item 4)',
    'template-quality.2025-10.': 'printed with field message_template_status_update, corrected on the 2026 page (SOURCES.md item 6)',
  };
  const files = readdirSync(new URL('../fixtures/meta-pages/', import.meta.url))
    .filter((file) => file.endsWith('.json'))
    .filter((file) => !Object.keys(SET_ASIDE).some((prefix) => file.startsWith(prefix)));
  const webhooks = files.filter((file) => pageJson(file).object === 'whatsapp_business_account');

  it.each(webhooks.filter((file) => !file.includes('.syntax.')))('webhook %s', (file) => {
    expect(check([webhook(PAGE(file))]).findings).toEqual([]);
  });

  // Syntax blocks hold placeholders ("<STATUS>") where values go: only their field names are checked. A user ID's
  // placeholder gets an ID of the page's own (a message whose ID fails its pattern would have all its fields reported).
  it.each(webhooks.filter((file) => file.includes('.syntax.')))('every field of the syntax block %s is declared', (file) => {
    const filled = JSON.parse(PAGE(file), (_key, value: unknown) =>
      typeof value === 'string' && /^<[A-Z_]*BSUID>$/.test(value)
        ? value.includes('PARENT')
          ? 'US.ENT.11815799212886844830'
          : 'US.13491208655302741918'
        : value,
    ) as unknown;
    const unknown = strictSchemaErrors('WebhookPayload', filled).filter((error) => error.includes('unevaluated properties'));
    expect(unknown).toEqual([]);
  });

  const answers: [string, Partial<CapturedExchange>][] = [
    ['utility-template.send-response.json', {}],
    ['custom-marketing-template.send-response.json', { path: `/v25.0/${NUMBER}/marketing_messages` }],
    ['bsuid-2026.send-response.to-bsuid.json', {}],
    ['bsuid-2026.send-response.to-phone-and-bsuid.json', {}],
    ['bsuid-2026.marketing-send-response.to-bsuid.json', { path: `/v25.0/${NUMBER}/marketing_messages` }],
    ['mark-as-read.response.json', {}],
    ['error-response.130429.json', { status: 400 }],
    ['error-response.100-template-required.json', { status: 400 }],
    ['media-upload.response.json', { path: `/v25.0/${NUMBER}/media` }],
    ['media-delete.response.json', { method: 'DELETE', path: '/v25.0/1037543291543636' }],
  ];
  it.each(answers)('answer %s', (file, where) => {
    expect(check([exchange({ userAgent: null, answer: pageJson(file), ...where })]).findings).toEqual([]);
  });

  it('the media page’s GET /<MEDIA_ID> answer', () => {
    const media = (pageJson('media-get-url.reference-example.json')['Retrieve Media URL'] as { value: Json }).value;
    const upload = exchange({ userAgent: null, path: `/v25.0/${NUMBER}/media`, answer: { id: media.id } });
    expect(
      check([upload, exchange({ userAgent: null, method: 'GET', path: `/v25.0/${String(media.id)}`, answer: media })]).findings,
    ).toEqual([]);
  });
});

describe('the overlay', () => {
  it('names every entry and cites, for each, a page of Meta’s or the defect it patches', () => {
    for (const entry of OVERLAY) {
      expect(entry.name, entry.name).not.toBe('');
      expect(entry.source, entry.name).toMatch(/https:\/\/developers\.facebook\.com\/|^defect: /);
    }
    expect(new Set(OVERLAY.map((entry) => entry.name)).size).toBe(OVERLAY.length);
  });
});
