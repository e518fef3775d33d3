import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Checks the API's answers against its OpenAPI document: the operation is found by method
 * and path template, the answer by status (or `default` for a 5xx: a refusal, 4xx, must be
 * listed by the route), its media type must be declared,
 * and a JSON body (application/json, application/problem+json) must match the declared
 * schema (Ajv, draft 2020-12). A CSV answer is checked for its media type only.
 */

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface MediaType {
  schema?: unknown;
}
interface Response {
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, Response>;
}
export interface OpenApiDocumentShape {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

/** One answer of the API as a test saw it. */
export interface RecordedAnswer {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  /** The parsed JSON body (JSON answers only); `undefined` when the body is not JSON or was not read. */
  body: unknown;
}

const DOCUMENT_ID = 'openapi.json';

export class AnswerChecker {
  readonly #document: OpenApiDocumentShape;
  readonly #ajv: Ajv2020;
  readonly #base: string;
  readonly #templates: { template: string; pattern: RegExp; literals: number }[];

  /** `document`: an OpenAPI 3.1 document (openApiDocument's, or the served one). */
  constructor(document: object) {
    this.#document = document as OpenApiDocumentShape;
    // strict off: the document around the schemas has OpenAPI's own keywords.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema(document, DOCUMENT_ID);
    this.#base = (this.#document.servers?.[0]?.url ?? '').replace(/\/$/, '');
    this.#templates = Object.keys(this.#document.paths).map((template) => ({
      template,
      pattern: templatePattern(template),
      literals: template.replace(/\{[^}]+\}/g, '').length,
    }));
  }

  /** What is wrong with an answer, one line per violation; empty when it is as documented. */
  check(method: string, urlPath: string, status: number, contentType: string | null, body: unknown): string[] {
    const path = this.#relative(urlPath);
    const at = `${method.toUpperCase()} ${path} ${status}`;
    const template = this.#templateOf(path);
    const operation = template === undefined ? undefined : this.#document.paths[template]?.[method.toLowerCase()];
    if (operation === undefined) {
      // No such route, or refused before routing (no token: 401): the API answers a problem document.
      if (status >= 400) return this.#problemOnly(at, contentType, body);
      return [`${at}: no operation in the document`];
    }
    const responses = operation.responses ?? {};
    // `default` stands for what any route may answer (Redis away, a bug); a route lists its own refusals (4xx) by status.
    const keys = [String(status), `${String(status)[0]}XX`, ...(status >= 500 ? ['default'] : [])];
    const key = keys.find((name) => responses[name] !== undefined);
    if (key === undefined) return [`${at}: status not documented (documented: ${Object.keys(responses).join(', ')})`];
    const pointer = `#/paths/${escapePointer(template!)}/${method.toLowerCase()}/responses/${key}`;
    return this.#checkContent(at, responses[key]!, pointer, contentType, body);
  }

  /** The validator of a schema in the document, by JSON pointer (`#/components/schemas/Problem`); throws when it does not compile. */
  validator(pointer: string): ValidateFunction {
    const validate = this.#ajv.getSchema(`${DOCUMENT_ID}${pointer}`);
    if (validate === undefined) throw new Error(`no schema at ${pointer}`);
    return validate;
  }

  #checkContent(at: string, response: Response, pointer: string, contentType: string | null, body: unknown): string[] {
    const declared = Object.keys(response.content ?? {});
    const type = mediaType(contentType);
    if (declared.length === 0) return type === undefined || body === undefined ? [] : [`${at}: a body (${type}) where none is declared`];
    if (type === undefined || !declared.includes(type))
      return [`${at}: content type ${type ?? 'none'} is not declared (declared: ${declared.join(', ')})`];
    if (!isJson(type) || response.content![type]!.schema === undefined) return [];
    return this.#validate(at, `${pointer}/content/${escapePointer(type)}/schema`, body);
  }

  #problemOnly(at: string, contentType: string | null, body: unknown): string[] {
    if (mediaType(contentType) !== 'application/problem+json') return [`${at}: no operation, and not a problem document`];
    return this.#validate(at, '#/components/schemas/Problem', body);
  }

  #validate(at: string, pointer: string, body: unknown): string[] {
    if (body === undefined) return [`${at}: the JSON body was not read or does not parse`];
    const validate = this.validator(pointer);
    if (validate(body) === true) return [];
    return (validate.errors ?? []).map(
      (error: ErrorObject) => `${at}: body${error.instancePath} ${error.message ?? error.keyword} ${params(error)}`,
    );
  }

  #relative(urlPath: string): string {
    const path = urlPath.replace(/^https?:\/\/[^/]+/, '').split(/[?#]/)[0]!;
    return this.#base !== '' && path.startsWith(`${this.#base}/`) ? path.slice(this.#base.length) : path;
  }

  /** The template a path matches; a literal segment wins over a parameter (`/campaigns/export` over `/campaigns/{id}`). */
  #templateOf(path: string): string | undefined {
    const matches = this.#templates.filter(({ pattern }) => pattern.test(path));
    return matches.sort((a, b) => b.literals - a.literals)[0]?.template;
  }
}

function templatePattern(template: string): RegExp {
  const parts = template.split(/(\{[^}]+\})/).map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('')}$`);
}

/** A JSON pointer's escaping of one reference token (RFC 6901), then URI-encoded as Ajv reads refs. */
function escapePointer(token: string): string {
  return encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function mediaType(contentType: string | null): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function isJson(type: string): boolean {
  return /^application\/(?:[\w.-]+\+)?json$/.test(type);
}

function params(error: ErrorObject): string {
  const detail = error.params as Record<string, unknown>;
  return Object.keys(detail).length === 0 ? '' : JSON.stringify(detail);
}
