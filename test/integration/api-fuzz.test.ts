import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../src/api/api-routes.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { AnswerChecker } from '../support/api-answers.js';
import { answeredCampaign } from '../support/api-campaigns.js';
import { ApiTestService } from '../support/api-service.js';
import { phoneNumber } from '../support/csv-files.js';
import { OpenApiFuzzer, operationsOf, type FuzzOperation, type FuzzRequest, type JsonSchema } from '../support/openapi-fuzz.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';

/**
 * The API against its own OpenAPI document, as served: requests drawn from the document's
 * schemas (test/support/openapi-fuzz.ts), with an admin, a read and no token. A request fails
 * the test when its answer is a 5xx, does not fit the document (a status the operation does
 * not declare, a body its schema refuses, an undeclared content type, a declared header
 * missing or malformed), or refuses for a reason the document does not state: the token's
 * scope decides 401 and 403 alone, and a request the document allows is never 400, 405, 413,
 * 415 or 422 but for a refusal no schema can state (what the server holds: a campaign, a
 * template, the file's contents; or a fact outside the request: a numbering plan, the tz
 * database, the clock). The draws are the same on every run (CI must not flake);
 * FUZZ_SEED=<n> or FUZZ_SEED=random draws others, and FUZZ_RUNS=<k> draws k times as many
 * examples per operation.
 */
const SEED = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 40);
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
/** Examples per operation and token: the admin's explore the operation, the others its refusals. */
const RUNS = { admin: Math.ceil(180 * SCALE), read: Math.ceil(30 * SCALE), none: Math.ceil(15 * SCALE) };
const SCOPES = ['read', 'send', 'admin'];

/** Refusals that depend on what the server holds or on the uploaded file's contents: no schema states them. */
const STATE_CODES = new Set([
  'CAMPAIGN_NOT_FOUND',
  'REJECTS_NOT_FOUND',
  'CAMPAIGN_STATE_CONFLICT',
  'CAMPAIGN_NOT_FINISHED',
  'CAMPAIGN_PURGED',
  'CAMPAIGN_MISMATCH',
  'CAMPAIGN_FILE_MISMATCH',
  'RETARGET_NO_ROWS',
  'TEMPLATE_MAPPING_INVALID',
  'TEMPLATE_SLOT_UNFILLED',
  'TEMPLATE_ENDPOINT_UNSUPPORTED',
  'TEMPLATE_NOT_MARKETING',
  'COST_ABOVE_MAX',
  'IDEMPOTENCY_KEY_IN_USE',
  'IDEMPOTENCY_KEY_REUSED',
  'CSV_UNREADABLE',
  'CSV_HEADER_INVALID',
  'CSV_NOT_CSV',
  'CSV_UNCLOSED_QUOTE',
  'CSV_NO_ROWS',
  // More test numbers than the file has rows.
  'TEST_SEND_INVALID',
  // The audience's segment is empty: its contacts, not the request, decide.
  'AUDIENCE_NO_CONTACTS',
  // The hooks the service holds.
  'HOOK_NOT_FOUND',
  // Click tracking needs the server's PUBLIC_URL and a template whose button points at it: the server and the template decide.
  'CLICK_TRACKING_INVALID',
]);
/**
 * Refusals of a value whose form the document states, for a reason no JSON Schema can: each
 * field's description names the code, and each code is this reason alone (never a form).
 */
const UNSTATABLE_CODES = new Set([
  // Whether a number of E.164's form is in its country's numbering plan: libphonenumber's data, not a pattern.
  'PHONE_NOT_IN_PLAN',
  // Whether a name of a zone's form is a zone: the tz database of the host decides, and it changes with releases.
  'TIMEZONE_NOT_FOUND',
  // A start behind, or more than 366 days ahead of, the server's clock: a schema has no clock.
  'TIME_IN_PAST',
  'TIME_TOO_FAR_AHEAD',
  // A deadline or expiry not after the start (another field's value, or the clock's): a schema cannot compare two values.
  'TIME_NOT_AFTER_START',
  // A `where` filter's grammar (docs/audiences.md) and the audience's attributes: a parser's and the store's to say.
  'AUDIENCE_WHERE_INVALID',
]);
/** Operations whose admin draws must sometimes succeed (2xx): the hints give them what the server holds. */
const EXPLORED = new Set(['createCampaign', 'pauseCampaign', 'resumeCampaign', 'cancelCampaign', 'retryCampaign', 'addOptOuts', 'addHook']);
/** Campaigns the fuzzer's IDs often name, so the operations get past 404: one finished, one running. */
const FINISHED = 'fuzzDone';
const RUNNING = 'fuzzRunning';
const HEADER = 'phone,first_name,order_id';
const UNREACHABLE_HOOK = 'http://127.0.0.1:9/fuzz-hook';

interface Answer {
  status: number;
  contentType: string | null;
  headers: Headers;
  body: unknown;
}

interface DeclaredHeader {
  required?: boolean;
  schema?: JsonSchema;
}

describe('HTTP API: fuzzed from its OpenAPI document', () => {
  const api = new ApiTestService('api-fuzz');
  let document: JsonSchema;
  let checker: AnswerChecker;
  let fuzzer: OpenApiFuzzer;

  beforeAll(async () => {
    await api.start({
      TEMPLATES_FILE: SAMPLE_TEMPLATES,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      PORTFOLIOS: `${PHONE_NUMBER_ID}:retail`,
      SEND_RATE: '0',
      API_RATE_LIMIT: '1000000',
      API_MAX_UPLOAD_BYTES: String(64 * 1024),
    });
    const ledger = new RedisLedger(api.redis, api.prefix);
    await answeredCampaign(ledger, FINISHED, ['sent', 'failed', 'sent']);
    await answeredCampaign(ledger, RUNNING, ['sent', 'queued', 'queued']);
    document = (await (await api.call('/openapi.json', { scope: 'none' })).json()) as JsonSchema;
    checker = new AnswerChecker(document);
    fuzzer = new OpenApiFuzzer(document, hintsOf());
  });
  afterAll(async () => {
    await api.close();
  });

  // The tests are named from the routes' own document; each then fuzzes the one the server serves.
  const operations = operationsOf(openApiDocument(API_ROUTES, { version: 'listing' }));

  it.each(operations.map((operation) => [`${operation.method} ${operation.template}`, operation] as const))(
    '%s: every answer fits the document, and nothing it allows is refused for an unstated reason',
    async (_name, listed) => {
      const operation = operationsOf(document).find((o) => o.method === listed.method && o.template === listed.template);
      expect(operation, 'the served document has the operation').toBeDefined();
      const findings = new Map<string, string>();
      let succeeded = 0;
      for (const [token, runs] of Object.entries(RUNS) as ['admin' | 'read' | 'none', number][]) {
        // A seed of its own per operation and token: another operation added changes nothing here.
        const requests = fc.sample(fuzzer.requests(operation!), { numRuns: runs, seed: seedOf(`${operation!.operationId} ${token}`) });
        for (const request of requests) {
          const answer = await send(api, request, token);
          if (token === 'admin' && answer.status < 300) succeeded++;
          const found = [...judge(checker, request, token, answer), ...headerFindings(document, checker, request, token, answer)];
          for (const finding of found)
            if (!findings.has(finding)) findings.set(finding, `${request.shown}\n    → ${detailsOf(answer.body)}`);
        }
      }
      const report = [...findings].map(([finding, example]) => `${finding}\n    e.g. ${example.slice(0, 1400)}`);
      expect(report, `FUZZ_SEED=${SEED}`).toStrictEqual([]);
      // Draws that never get past the checks explore nothing behind them: the hints must still make requests the server takes.
      if (EXPLORED.has(operation!.operationId)) expect(succeeded, `FUZZ_SEED=${SEED}: 2xx answers to the admin's draws`).toBeGreaterThan(0);
    },
  );
});

function seedOf(name: string): number {
  let hash = SEED;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** What a client would send for names the server holds: campaigns that exist, the configured number, a template, a CSV. */
function hintsOf() {
  const csv = (rows: number, extra = '') =>
    [HEADER, ...Array.from({ length: rows }, (_, i) => `${phoneNumber(i + 1)},Name${i},A-${i}`)].join('\n') + `\n${extra}`;
  const template = { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] };
  return {
    likely: {
      // Specs a client would send whole, so a fair share of the draws get past the checks and create or plan a campaign.
      spec: [
        template,
        { ...template, dryRun: true },
        { text: 'Hi {{first_name}}, order {{order_id}} has shipped' },
        { ...template, window: '09:00-20:00', days: 'mon-fri', defaultTimezone: 'Europe/Berlin', priority: 'high', validFor: '48h' },
        { ...template, displayTimezone: 'America/New_York', defaultCountry: 'DE', name: 'Fuzzed campaign' },
      ],
      phoneColumn: ['phone'],
      delimiter: [','],
      defaultTimezone: ['Europe/Berlin', 'UTC'],
      displayTimezone: ['America/New_York', 'UTC'],
      window: ['09:00-20:00', '22:00-06:00'],
      days: ['mon-fri', 'sat,sun'],
      defaultCountry: ['DE', 'us'],
      text: ['Hi {{first_name}}'],
      id: [FINISHED, RUNNING],
      campaign: [FINISHED],
      template: ['order_update'],
      language: ['en_US'],
      params: [['first_name', 'order_id']],
      phones: [[phoneNumber(1)], [phoneNumber(2), phoneNumber(3)]],
    },
    // A hook's URL: a local port nothing listens on, so neither its test nor its deliveries reach a host of the draws.
    only: { portfolio: ['retail'], phoneNumberId: [PHONE_NUMBER_ID], url: [UNREACHABLE_HOOK] },
    binary: fc.oneof(
      fc.integer({ min: 1, max: 5 }).map((rows) => csv(rows)),
      fc.string({ maxLength: 60 }).map((text) => `${HEADER}\n${text}`),
      fc.string({ unit: 'binary', maxLength: 80 }),
    ),
    // A start a client would ask for: from an hour ahead to a few months.
    dateTimeWindowMs: { min: 3_600_000, max: 120 * 86_400_000 },
  };
}

async function send(api: ApiTestService, request: FuzzRequest, token: 'admin' | 'read' | 'none'): Promise<Answer> {
  const auth: Record<string, string> = token === 'none' ? {} : { authorization: `Bearer ${api.tokens[token]}` };
  const answer = await fetch(`${api.url}${request.path}`, {
    method: request.method,
    headers: { ...request.headers, ...auth },
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const contentType = answer.headers.get('content-type');
  const text = await answer.text();
  let body: unknown;
  if (/^application\/(?:[\w.-]+\+)?json\b/i.test(contentType ?? '') && text !== '') {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = undefined;
    }
  }
  return { status: answer.status, contentType, headers: answer.headers, body };
}

/** What is wrong with an answer to a request the document allows, one line per kind of wrong (the same kind is reported once). */
function judge(checker: AnswerChecker, request: FuzzRequest, token: 'admin' | 'read' | 'none', answer: Answer): string[] {
  const { operation } = request;
  const at = `${request.method} ${operation.template} [${token}] ${answer.status}`;
  const code = problemCode(answer.body);
  const findings = checker.check(request.method, `/api/v1${request.path}`, answer.status, answer.contentType, answer.body).map(
    // The checker's lines name the concrete path: the template is the kind.
    (line) => `${at}: does not fit the document: ${line.replace(/^\S+ \S+ \d+: /, '')}`,
  );
  if (answer.status >= 500) findings.push(`${at}: a server error (${code ?? 'no code'})`);
  const expected = expectedAuth(operation, token);
  if (expected !== undefined && answer.status !== expected)
    findings.push(`${at}: expected ${expected} for this token (${code ?? 'no code'})`);
  if (expected === undefined && (answer.status === 401 || answer.status === 403))
    findings.push(`${at}: refused a token that may call it (${code ?? 'no code'})`);
  if (expected === undefined) findings.push(...unstatedRefusals(at, answer, code));
  return findings;
}

/** The answer's headers against those its response declares: each required one present, each present one fitting its schema. */
function headerFindings(document: JsonSchema, checker: AnswerChecker, request: FuzzRequest, token: string, answer: Answer): string[] {
  const { method, template } = request.operation;
  const responses = ((document.paths as Record<string, Record<string, { responses?: Record<string, { headers?: unknown }> }>>)[template]?.[
    method.toLowerCase()
  ]?.responses ?? {}) as Record<string, { headers?: Record<string, DeclaredHeader> }>;
  const keys = [String(answer.status), `${String(answer.status)[0]}XX`, ...(answer.status >= 500 ? ['default'] : [])];
  const key = keys.find((name) => responses[name] !== undefined);
  if (key === undefined) return [];
  const at = `${method} ${template} [${token}] ${answer.status}`;
  const path = encodeURIComponent(template.replace(/~/g, '~0').replace(/\//g, '~1'));
  const base = `#/paths/${path}/${method.toLowerCase()}/responses/${key}/headers`;
  return Object.entries(responses[key]!.headers ?? {}).flatMap(([name, header]) => {
    const value = answer.headers.get(name);
    if (value === null) return header.required === true ? [`${at}: no ${name} header, which the document says it has`] : [];
    if (header.schema === undefined) return [];
    const fits = checker.validator(`${base}/${encodeURIComponent(name)}/schema`)(value) === true;
    return fits ? [] : [`${at}: the ${name} header does not fit the document`];
  });
}

/** The status the token alone decides: 401 without one, 403 when its scope is narrower than the operation's; else undefined. */
function expectedAuth(operation: FuzzOperation, token: 'admin' | 'read' | 'none'): number | undefined {
  if (operation.scope === undefined) return undefined;
  if (token === 'none') return 401;
  return SCOPES.indexOf(token) < SCOPES.indexOf(operation.scope) ? 403 : undefined;
}

/** A refusal of a request the document allows, for a reason it does not state: one finding per problem (code and field). */
function unstatedRefusals(at: string, answer: Answer, code: string | undefined): string[] {
  const refused = (kind: string) => `${at}: refused a request the document allows: ${kind}`;
  if ([400, 405, 413, 415].includes(answer.status)) return kindsOf(answer.body).map(refused);
  if (answer.status === 404 && code === 'API_NOT_FOUND') return [`${at}: no route for a documented operation`];
  if (answer.status !== 422) return [];
  return kindsOf(answer.body)
    .filter((kind) => !STATE_CODES.has(kind.split('@')[0]!) && !UNSTATABLE_CODES.has(kind.split('@')[0]!))
    .map(refused);
}

/** What the answer says, for a failure's example: its problems' details (or its own). */
function detailsOf(body: unknown): string {
  const problem = body as { detail?: string; problems?: { detail?: string }[] } | undefined;
  const details = (problem?.problems ?? []).map((p) => p.detail ?? '');
  return (details.length === 0 ? [problem?.detail ?? ''] : details).join(' | ').slice(0, 600);
}

function problemCode(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string'
    ? (body as { code: string }).code
    : undefined;
}

/** A refusal's kinds: each problem's code and field (not its detail, which names the value drawn); `phones.3` is `phones.*`. */
function kindsOf(body: unknown): string[] {
  const problem = body as { code?: string; problems?: { code: string; field?: string; column?: string }[] } | undefined;
  const items = (problem?.problems ?? []).map((p) => `${p.code}@${(p.field ?? p.column ?? '?').replace(/\.\d+(?=\.|$)/g, '.*')}`);
  return items.length === 0 ? [problem?.code ?? 'no problem document'] : [...new Set(items)];
}
