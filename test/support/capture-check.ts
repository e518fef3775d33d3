import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_BUSINESS_ACCOUNT_IDS,
  DEFAULT_PHONE_NUMBER_IDS,
  type CapturedExchange,
  type CapturedLine,
  type CapturedWebhook,
} from '../../src/sandbox/index.js';
import { openApi, strictErrorsAt, strictSchemaErrors } from './openapi-schemas.js';
import { marketingRequestContract, requestContract } from './request-contract.js';

/**
 * The suite-wide check of what the sandbox captured (src/sandbox/request-log.ts) against Meta's
 * OpenAPI with our overlay (openapi-overlay.ts):
 *
 * - every request the product sent (its User-Agent is `campaign-worker/<version>`; tests' own
 *   requests, malformed on purpose or not, are not checked): its path and method are an
 *   operation of the spec, its query parameters are declared for it, its headers match the
 *   declared ones, and its body validates (a send walked part by part, request-contract.ts);
 * - every answer the sandbox gave, to anyone: valid against the operation's response for its
 *   status (an error status the operation does not declare: Graph's error object), or, on a
 *   path the spec does not have, an error answer in Graph's shape;
 * - every webhook the sandbox posted: valid against the webhook payload schemas.
 *
 * Answers, webhooks and non-send bodies are validated strictly: a property no schema declares
 * is an error (openapi-schemas.ts).
 */

type Json = Record<string, unknown>;

export interface Finding {
  /** The operation (`POST /{Version}/{Phone-Number-ID}/messages`), or `webhook <fields>`, or what could not be read. */
  operation: string;
  what: 'request' | 'answer' | 'webhook' | 'capture';
  /** file:line of the capture. */
  where: string;
  /** The request line (`POST /v25.0/…/messages → 400`), or the webhook's receiver. */
  summary: string;
  /** The first errors. */
  errors: string[];
}

export interface OperationCount {
  /** Product requests checked. */
  requests: number;
  /** Answers checked (requests held unanswered have none). */
  answers: number;
  webhooks: number;
  invalid: number;
}

export interface CaptureReport {
  findings: Finding[];
  counts: Map<string, OperationCount>;
  /** Lines read, and a final line a process left half-written (it was ended mid-write). */
  lines: number;
  cutShort: number;
}

export interface CaptureFile {
  name: string;
  /** Each line's text; parsed by the check, so an unreadable one is a finding. */
  lines: string[];
  /** The file did not end with a newline: its last line may be half-written. */
  unterminated: boolean;
}

/** The user agent of every request the product sends (src/cloud-api/user-agent.ts). */
export const PRODUCT_USER_AGENT = /^campaign-worker\/\d+\.\d+\.\d+/;

/** At most this many findings are kept per operation and kind (all are counted). */
const KEPT_PER_OPERATION = 20;
const FIRST_ERRORS = 6;

export function readCaptureDir(dir: string): CaptureFile[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ndjson'))
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      const lines = text.split('\n');
      const unterminated = lines.at(-1) !== '';
      if (!unterminated) lines.pop();
      return { name, lines, unterminated };
    });
}

export function checkCaptures(files: readonly CaptureFile[]): CaptureReport {
  const report: CaptureReport = { findings: [], counts: new Map(), lines: 0, cutShort: 0 };
  const kept = new Map<string, number>();
  const note = (finding: Finding) => {
    const key = `${finding.operation} ${finding.what}`;
    const count = kept.get(key) ?? 0;
    kept.set(key, count + 1);
    if (count < KEPT_PER_OPERATION) report.findings.push({ ...finding, errors: firstErrors(finding.errors) });
  };
  for (const file of files) {
    const parsed: { line: CapturedLine; where: string }[] = [];
    file.lines.forEach((text, index) => {
      report.lines += 1;
      const where = `${file.name}:${index + 1}`;
      const line = parseLine(text);
      if (line !== undefined) parsed.push({ line, where });
      else if (file.unterminated && index === file.lines.length - 1) report.cutShort += 1;
      else note({ operation: 'unreadable capture line', what: 'capture', where, summary: text.slice(0, 120), errors: [] });
    });
    const nodes = learnNodes(parsed.map((p) => p.line));
    for (const { line, where } of parsed) {
      if (line.kind === 'webhook') checkWebhook(line, where, report, note);
      else checkExchange(line, where, nodes, report, note);
    }
  }
  return report;
}

/** The first errors, without ajv's echoes of a failed branch ("must match \"then\" schema") when there is more to say. */
function firstErrors(errors: readonly string[]): string[] {
  const telling = errors.filter((error) => !/ must match "(then|else)" schema /.test(error));
  return (telling.length > 0 ? telling : errors).slice(0, FIRST_ERRORS);
}

function parseLine(text: string): CapturedLine | undefined {
  try {
    const line = JSON.parse(text) as CapturedLine;
    return line.kind === 'exchange' || line.kind === 'webhook' ? line : undefined;
  } catch {
    return undefined;
  }
}

function countOf(report: CaptureReport, operation: string): OperationCount {
  let count = report.counts.get(operation);
  if (count === undefined) {
    count = { requests: 0, answers: 0, webhooks: 0, invalid: 0 };
    report.counts.set(operation, count);
  }
  return count;
}

// ---- operations ---------------------------------------------------------------------------

interface Operation {
  template: string;
  method: string;
  /** `POST /{Version}/{Phone-Number-ID}/messages` */
  label: string;
  operation: Json;
  pathItem: Json;
  /** Segments after the version. */
  segments: string[];
  /** The template starts with {Version} (Graph lets a call leave it out). */
  versioned: boolean;
}

const METHODS = ['get', 'post', 'delete', 'put', 'patch'];

const OPERATIONS: Operation[] = Object.entries(openApi.paths).flatMap(([template, pathItem]) => {
  const all = template.split('/').filter((s) => s !== '');
  const versioned = all[0] === '{Version}';
  const segments = versioned ? all.slice(1) : all;
  return METHODS.filter((method) => isObject(pathItem[method])).map((method) => ({
    template,
    method,
    label: `${method.toUpperCase()} ${template}`,
    operation: pathItem[method] as Json,
    pathItem,
    segments,
    versioned,
  }));
});

const isParameter = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');
const VERSION = /^v\d+\.\d+$/;

/**
 * The Graph nodes a one-segment path can name, by the templates Meta's spec gives each. Which
 * one an ID is, the capture tells (learnNodes); an ID it does not tell is taken as what the
 * sandbox serves for that method (GET: a phone number; POST: a template edit; DELETE: media).
 */
const NODE_TEMPLATES: Readonly<Record<NodeKind, readonly string[]>> = {
  phone: ['{Phone-Number-ID}', '{WhatsApp-Account-Number-ID}'],
  waba: ['{WABA-ID}'],
  media: ['{Media-ID}'],
  template: ['{TEMPLATE_ID}'],
};
type NodeKind = 'phone' | 'waba' | 'media' | 'template';
const DEFAULT_NODE: Readonly<Record<string, NodeKind>> = { get: 'phone', post: 'template', delete: 'media' };

interface Nodes {
  kinds: Map<string, NodeKind>;
}

/** The operations of the spec `method path` can be, the most literal first; empty when none. */
function operationsFor(method: string, path: string, nodes: Nodes): Operation[] {
  const all = path.split('/').filter((s) => s !== '');
  const hasVersion = all[0] !== undefined && VERSION.test(all[0]);
  const segments = hasVersion ? all.slice(1) : all;
  const lower = method.toLowerCase();
  let best: Operation[] = [];
  let bestLiterals = -1;
  for (const op of OPERATIONS) {
    if (op.method !== lower || op.segments.length !== segments.length || (hasVersion && !op.versioned)) continue;
    let literals = 0;
    const matches = op.segments.every((segment, i) => {
      if (isParameter(segment)) return segments[i] !== '';
      literals += 1;
      return segment === segments[i];
    });
    if (!matches) continue;
    if (literals > bestLiterals) {
      best = [op];
      bestLiterals = literals;
    } else if (literals === bestLiterals) {
      best.push(op);
    }
  }
  if (best.length > 1 && segments.length === 1 && segments[0] !== undefined) {
    const kind = nodes.kinds.get(segments[0]) ?? DEFAULT_NODE[lower];
    const wanted = kind === undefined ? [] : NODE_TEMPLATES[kind];
    return best.filter((op) => wanted.includes(op.segments[0] ?? ''));
  }
  return best;
}

/**
 * What each ID is, by the sandbox's defaults and what the capture of one sandbox says: the
 * number in a send's path or a webhook's metadata, the WABA a webhook's entry or a template
 * list names, the ID an upload got, the templates a list or a webhook names.
 */
function learnNodes(lines: readonly CapturedLine[]): Nodes {
  const kinds = new Map<string, NodeKind>();
  const set = (id: unknown, kind: NodeKind) => {
    if (typeof id === 'string' || typeof id === 'number') kinds.set(String(id), kind);
  };
  for (const id of DEFAULT_BUSINESS_ACCOUNT_IDS) set(id, 'waba');
  for (const id of DEFAULT_PHONE_NUMBER_IDS) set(id, 'phone');
  for (const line of lines) {
    if (line.kind === 'webhook') {
      const payload = parseJson(line.payload);
      for (const entry of list(isObject(payload) ? payload.entry : undefined)) {
        if (isObject(entry)) set(entry.id, 'waba');
        for (const change of list(isObject(entry) ? entry.changes : undefined)) {
          const value = isObject(change) && isObject(change.value) ? change.value : {};
          if (isObject(value.metadata)) set(value.metadata.phone_number_id, 'phone');
          set(value.message_template_id, 'template');
        }
      }
      continue;
    }
    const segments = line.path.split('/').filter((s) => s !== '' && !VERSION.test(s));
    const [id, edge] = segments;
    if (segments.length === 2 && (edge === 'messages' || edge === 'marketing_messages' || edge === 'media')) set(id, 'phone');
    if (segments.length === 2 && edge === 'message_templates') {
      set(id, 'waba');
      if (isObject(line.answer)) for (const template of list(line.answer.data)) if (isObject(template)) set(template.id, 'template');
    }
    if (segments.length === 2 && edge === 'media' && line.status === 200 && isObject(line.answer)) set(line.answer.id, 'media');
  }
  return { kinds };
}

// ---- exchanges ----------------------------------------------------------------------------

function checkExchange(line: CapturedExchange, where: string, nodes: Nodes, report: CaptureReport, note: (f: Finding) => void): void {
  const operations = operationsFor(line.method, line.path, nodes);
  const label = operations[0]?.label ?? `(no operation) ${line.method} ${shape(line.path)}`;
  const summary = `${line.method} ${line.path}${queryText(line.query)} → ${line.status ?? 'no answer'}`;
  const count = countOf(report, label);
  if (PRODUCT_USER_AGENT.test(line.userAgent ?? '')) {
    count.requests += 1;
    const errors =
      operations.length === 0
        ? [`no operation of the OpenAPI is ${line.method} ${line.path}`]
        : firstValid(operations.map((op) => requestErrors(op, line)));
    if (errors.length > 0) {
      count.invalid += 1;
      note({ operation: label, what: 'request', where, summary, errors });
    }
  }
  if (line.status === null) return;
  count.answers += 1;
  const errors = operations.length === 0 ? unroutedAnswerErrors(line) : firstValid(operations.map((op) => answerErrors(op, line)));
  if (errors.length > 0) {
    count.invalid += 1;
    note({ operation: label, what: 'answer', where, summary, errors });
  }
}

/** Empty when any candidate accepts; else the first candidate's errors. */
function firstValid(candidates: string[][]): string[] {
  return candidates.some((errors) => errors.length === 0) ? [] : (candidates[0] ?? []);
}

function requestErrors(op: Operation, line: CapturedExchange): string[] {
  const errors: string[] = [];
  const parameters = parametersOf(op);
  const query = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of Object.keys(line.query)) {
    if (!query.has(name)) errors.push(`query parameter ${name} is not declared for ${op.label}`);
  }
  for (const parameter of parameters.filter((p) => p.in === 'query' && p.required === true)) {
    if (!(parameter.name in line.query)) errors.push(`required query parameter ${parameter.name} is missing`);
  }
  errors.push(...headerErrors(parameters, line));
  errors.push(...bodyErrors(op, line));
  return errors;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}

function parametersOf(op: Operation): Parameter[] {
  return [...list(op.pathItem.parameters), ...list(op.operation.parameters)].map(resolveParameter).filter((p) => p !== undefined);
}

function resolveParameter(parameter: unknown): Parameter | undefined {
  if (!isObject(parameter)) return undefined;
  if (typeof parameter.$ref === 'string') {
    const name = parameter.$ref.replace('#/components/parameters/', '');
    return resolveParameter(openApi.components.parameters?.[name]);
  }
  return typeof parameter.name === 'string' && typeof parameter.in === 'string' ? (parameter as unknown as Parameter) : undefined;
}

/**
 * The two headers the capture keeps, against the operation's declared ones (Authorization is
 * the token's, and never captured). Content-Type matters only where there is a body: Graph
 * reads none on a GET.
 */
function headerErrors(parameters: readonly Parameter[], line: CapturedExchange): string[] {
  const errors: string[] = [];
  const hasBody = line.body !== undefined || line.multipart !== undefined;
  const captured: Record<string, string | null> = { 'user-agent': line.userAgent, 'content-type': mediaType(line.contentType) };
  for (const parameter of parameters.filter((p) => p.in === 'header')) {
    const name = parameter.name.toLowerCase();
    if (!(name in captured) || (name === 'content-type' && !hasBody)) continue;
    const value = captured[name];
    if (value === null || value === undefined) {
      if (parameter.required === true) errors.push(`header ${parameter.name} is missing`);
      continue;
    }
    const schema = parameter.schema ?? {};
    if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
      errors.push(`header ${parameter.name} "${value}" is not one of ${schema.enum.join(', ')}`);
    }
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) {
      errors.push(`header ${parameter.name} "${value}" does not match ${schema.pattern}`);
    }
  }
  return errors;
}

function bodyErrors(op: Operation, line: CapturedExchange): string[] {
  const requestBody = isObject(op.operation.requestBody) ? op.operation.requestBody : undefined;
  const content = isObject(requestBody?.content) ? requestBody.content : {};
  if (line.bodyNotJson === true) return ['the body is not JSON'];
  if (line.multipart !== undefined) return multipartErrors(op, content, line.multipart);
  if (line.body === undefined) return requestBody?.required === true ? ['the operation requires a body; none was sent'] : [];
  if (!isObject(content['application/json'])) return [`${op.label} takes no JSON body`];
  const type = mediaType(line.contentType);
  const typeErrors = type === 'application/json' ? [] : [`a JSON body sent as ${String(type)}`];
  if (op.label === 'POST /{Version}/{Phone-Number-ID}/messages') {
    const body = line.body;
    const markRead = isObject(body) && body.status === 'read';
    return [...typeErrors, ...(markRead ? strictSchemaErrors('MarkMessageRequestPayload', body) : requestContract(body, true).errors)];
  }
  if (op.label === 'POST /{Version}/{Phone-Number-ID}/marketing_messages')
    return [...typeErrors, ...marketingRequestContract(line.body, true).errors];
  const tokens = ['paths', op.template, op.method, 'requestBody', 'content', 'application/json', 'schema'];
  return [...typeErrors, ...strictErrorsAt(tokens, line.body, '', `${op.label} body`)];
}

function multipartErrors(op: Operation, content: Json, multipart: NonNullable<CapturedExchange['multipart']>): string[] {
  const form = content['multipart/form-data'];
  if (!isObject(form)) return [`${op.label} takes no multipart body`];
  const declared = isObject(form.schema) && isObject(form.schema.properties) ? Object.keys(form.schema.properties) : [];
  const names = [...multipart.fields.map((f) => f.name), ...multipart.files.map((f) => f.name)];
  return names.filter((name) => !declared.includes(name)).map((name) => `multipart part ${name} is not declared for ${op.label}`);
}

function answerErrors(op: Operation, line: CapturedExchange): string[] {
  const status = line.status ?? 0;
  const responses = isObject(op.operation.responses) ? op.operation.responses : {};
  const key = [String(status), `${String(status)[0]}XX`, ...(status >= 400 ? ['default'] : [])].find((k) => isObject(responses[k]));
  if (key === undefined) return [`status ${status} is not an answer ${op.label} declares`];
  const { response, tokens } = resolveResponse(responses[key] as Json, ['paths', op.template, op.method, 'responses', key]);
  const content = isObject(response.content) ? response.content : undefined;
  const hasBody = line.answer !== undefined || (line.answerBytes ?? 0) > 0;
  if (content === undefined) return hasBody ? [`${op.label} answers ${status} with no body; this one has one`] : [];
  const json = content['application/json'];
  if (!isObject(json)) {
    // A file (the media download): any type the response declares, or any at all for */*.
    if (line.answer !== undefined && !('*/*' in content))
      return [`${op.label} answers ${status} with ${Object.keys(content).join(', ')}, not JSON`];
    return [];
  }
  if (line.answer === undefined) return [`${op.label} answers ${status} with JSON; this answer ${hasBody ? 'is not JSON' : 'has no body'}`];
  return strictErrorsAt([...tokens, 'content', 'application/json', 'schema'], line.answer, '', `${op.label} ${key}`);
}

/** A response given by `$ref` to components/responses, followed to the response itself, with where it is. */
function resolveResponse(response: Json, tokens: string[]): { response: Json; tokens: string[] } {
  const target = typeof response.$ref === 'string' ? response.$ref.replace('#/components/responses/', '') : undefined;
  if (target === undefined) return { response, tokens };
  const found = openApi.components.responses?.[target];
  if (!isObject(found)) return { response: {}, tokens };
  return resolveResponse(found, ['components', 'responses', target]);
}

/** A path no operation has: Graph answers it with an error (2500 "Unknown path components"), never anything else. */
function unroutedAnswerErrors(line: CapturedExchange): string[] {
  if ((line.status ?? 0) < 400) return [`answered ${String(line.status)} on a path the OpenAPI does not have`];
  if (line.answer === undefined) return ['an error answer without Graph’s error body'];
  return strictSchemaErrors('GraphAPIError', line.answer);
}

// ---- webhooks -----------------------------------------------------------------------------

function checkWebhook(line: CapturedWebhook, where: string, report: CaptureReport, note: (f: Finding) => void): void {
  const payload = parseJson(line.payload);
  const fields = [
    ...new Set(
      list(isObject(payload) ? payload.entry : undefined).flatMap((entry) =>
        list(isObject(entry) ? entry.changes : undefined).map((change) => (isObject(change) ? String(change.field) : '?')),
      ),
    ),
  ];
  const label = `webhook ${fields.join('+') || '(no change)'}`;
  const count = countOf(report, label);
  count.webhooks += 1;
  const errors = payload === undefined ? ['the payload is not JSON'] : strictSchemaErrors('WebhookPayload', payload);
  if (errors.length > 0) {
    count.invalid += 1;
    note({ operation: label, what: 'webhook', where, summary: `POST ${line.url}`, errors });
  }
}

// ---- bits ---------------------------------------------------------------------------------

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function mediaType(contentType: string | null | undefined): string | null {
  if (contentType === null || contentType === undefined) return null;
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** A path with its IDs replaced, so the counts of unknown paths group. */
function shape(path: string): string {
  return path.replace(/\/\d{3,}/g, '/{id}');
}

function queryText(query: Record<string, string | string[]>): string {
  const names = Object.keys(query);
  return names.length === 0 ? '' : `?${names.join('&')}`;
}

/** One line per operation: what was checked, and how much of it was invalid. */
export function countsTable(report: CaptureReport): string {
  const rows = [...report.counts.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(20, ...rows.map(([operation]) => operation.length));
  const row = (name: string, c: OperationCount): string =>
    [name.padEnd(width), ...[c.requests, c.answers, c.webhooks, c.invalid].map((n, i) => String(n).padStart(COLUMNS[i]?.length ?? 8))].join(
      '  ',
    );
  const total = rows.reduce<OperationCount>(
    (sum, [, c]) => ({
      requests: sum.requests + c.requests,
      answers: sum.answers + c.answers,
      webhooks: sum.webhooks + c.webhooks,
      invalid: sum.invalid + c.invalid,
    }),
    { requests: 0, answers: 0, webhooks: 0, invalid: 0 },
  );
  return [['operation'.padEnd(width), ...COLUMNS].join('  '), ...rows.map(([name, c]) => row(name, c)), row('total', total)].join('\n');
}

const COLUMNS = ['requests', 'answers', 'webhooks', 'invalid'];

export function findingText(finding: Finding): string {
  return [`${finding.what} of ${finding.operation} (${finding.where}): ${finding.summary}`, ...finding.errors.map((e) => `    ${e}`)].join(
    '\n',
  );
}
