import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * A fuzzer driven by an OpenAPI 3.1 document: for each operation, requests drawn with
 * fast-check from its parameters' and body's JSON Schemas. Every value drawn is checked
 * against its schema (Ajv, the document's own), so a request this makes is one the document
 * allows; what the server answers is then for the test to judge. Values are serialized as
 * OpenAPI's defaults say: path and query parameters `form`-style, a header as its text, a
 * JSON body as JSON, a multipart body one part per property (a binary property as a file,
 * an object or array as JSON).
 */

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type JsonSchema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
  content?: Record<string, { schema?: JsonSchema }>;
  /** Taken only with a body of these media types, needed with one when `required` (the document's extension: OpenAPI has none). */
  'x-with-body'?: { types: string[]; required: boolean };
}

interface MediaType {
  schema?: JsonSchema;
  encoding?: Record<string, { contentType?: string }>;
}

/** One operation of the document, as the fuzzer reads it. */
export interface FuzzOperation {
  method: string;
  /** The path template, below the document's server URL (`/campaigns/{id}`). */
  template: string;
  operationId: string;
  /** `x-scope`: the narrowest token scope that may call it; undefined: needs no token (`security: []`). */
  scope: string | undefined;
  parameters: Parameter[];
  body: { required: boolean; content: Record<string, MediaType> } | undefined;
  /** JSON pointers (in the document) of each parameter's and body type's schema. */
  pointers: { parameters: string[]; body: Record<string, string> };
}

/** A body drawn: its media type (undefined: none), the value to send, its headers, and what to show of it. */
interface DrawnBody {
  type: string | undefined;
  value: string | FormData | undefined;
  headers: Record<string, string>;
  shown: unknown;
}

/** A request drawn for an operation: ready for fetch() below the server URL. */
export interface FuzzRequest {
  operation: FuzzOperation;
  method: string;
  /** Path and query, encoded. */
  path: string;
  headers: Record<string, string>;
  body: string | FormData | undefined;
  /** What was drawn, for a failure message (a FormData is shown by its parts). */
  shown: string;
}

/** Values a client would use for a parameter or property of this name (a campaign that exists, a configured number). */
export interface FuzzHints {
  /** Drawn often, beside what the schema allows (both are checked against the schema). */
  likely?: Record<string, readonly unknown[]>;
  /** Drawn always: names only the server's configuration holds (a portfolio, a number), which no schema can list. */
  only?: Record<string, readonly unknown[]>;
  /** The contents of a binary body or part (an upload): what a client would send as its file. */
  binary?: fc.Arbitrary<string>;
  /** date-time values are drawn from [now + min, now + max]: a start a client would ask for. */
  dateTimeWindowMs?: { min: number; max: number };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
/** Bounds for what the schema leaves unbounded: enough to find a limit the document lacks, small enough to be quick. */
const UNBOUNDED = { stringLength: 40, arrayItems: 4, integer: 10_000_000, depth: 4 };

/** Every operation of the document, in its order. */
export function operationsOf(document: JsonSchema): FuzzOperation[] {
  const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
  const operations: FuzzOperation[] = [];
  for (const [template, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const base = `#/paths/${pointerToken(template)}/${method}`;
      const parameters = (operation.parameters ?? []) as Parameter[];
      const body = operation.requestBody as FuzzOperation['body'];
      const security = operation.security as unknown[] | undefined;
      operations.push({
        method: method.toUpperCase(),
        template,
        operationId: typeof operation.operationId === 'string' ? operation.operationId : `${method} ${template}`,
        scope: security !== undefined && security.length === 0 ? undefined : ((operation['x-scope'] as string | undefined) ?? ''),
        parameters,
        body,
        pointers: {
          parameters: parameters.map(
            (p, i) => `${base}/parameters/${i}/${p.schema === undefined ? `content/${pointerToken(mediaOf(p))}/schema` : 'schema'}`,
          ),
          body: Object.fromEntries(
            Object.keys(body?.content ?? {}).map((type) => [type, `${base}/requestBody/content/${pointerToken(type)}/schema`]),
          ),
        },
      });
    }
  }
  return operations;
}

/** Draws requests from one document. */
export class OpenApiFuzzer {
  readonly #document: JsonSchema;
  readonly #ajv: Ajv2020;
  readonly #hints: FuzzHints;

  constructor(document: JsonSchema, hints: FuzzHints = {}) {
    this.#document = document;
    this.#hints = hints;
    this.#ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.#ajv);
    // OpenAPI's own formats of bytes and numbers: any value of the type fits.
    for (const format of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) this.#ajv.addFormat(format, true);
    this.#ajv.addSchema(document, 'openapi');
  }

  /** Requests for `operation`, each allowed by the document. */
  requests(operation: FuzzOperation): fc.Arbitrary<FuzzRequest> {
    const parameters = operation.parameters.filter((p) => p.in !== 'cookie');
    const values = fc.tuple(
      ...parameters.map((parameter) => this.#parameter(operation, parameter, operation.parameters.indexOf(parameter))),
    );
    return fc.tuple(values, this.#body(operation)).map(([values, body]) => {
      // A parameter the document takes only with other bodies is left out, as a client reading it would.
      const drawn = values.map((value, i) => (onlyWith(parameters[i]!, body.type) ? value : undefined));
      const path = pathOf(operation.template, parameters, drawn);
      const headers: Record<string, string> = { ...body.headers };
      parameters.forEach((parameter, i) => {
        if (parameter.in === 'header' && drawn[i] !== undefined) headers[parameter.name] = textOf(drawn[i]);
      });
      const shown = JSON.stringify({ path: readable(path), headers, body: body.shown });
      return { operation, method: operation.method, path, headers, body: body.value, shown };
    });
  }

  /** A parameter's value (undefined: left out, when it is optional), checked against its schema. */
  #parameter(operation: FuzzOperation, parameter: Parameter, index: number): fc.Arbitrary<unknown> {
    const schema = parameter.schema ?? parameter.content?.[mediaOf(parameter)]?.schema ?? {};
    const pointer = operation.pointers.parameters[index]!;
    let value = this.#named(parameter.name, this.value(schema, 0), pointer);
    if (parameter.in === 'path') value = value.filter((v) => !['', '.', '..'].includes(textOf(v)));
    // A header carries visible ASCII only, and fetch trims its ends: values beyond are not a request a client can send.
    if (parameter.in === 'header') value = value.filter((v) => /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/.test(textOf(v)));
    if (parameter.content !== undefined) value = value.map((v) => JSON.stringify(v));
    const required = parameter.required === true || parameter.in === 'path' || parameter['x-with-body']?.required === true;
    return required ? value : fc.option(value, { nil: undefined });
  }

  /** The body: one of the declared media types (or none, when it is optional). */
  #body(operation: FuzzOperation): fc.Arbitrary<DrawnBody> {
    const none = fc.constant<DrawnBody>({ type: undefined, value: undefined, headers: {}, shown: undefined });
    const content = operation.body?.content ?? {};
    const types = Object.keys(content);
    if (types.length === 0) return none;
    const bodies = types.map((type) => this.#bodyOf(type, content[type]!, operation.pointers.body[type]!));
    return operation.body?.required === true ? fc.oneof(...bodies) : fc.oneof(none, ...bodies);
  }

  #bodyOf(type: string, media: MediaType, pointer: string): fc.Arbitrary<DrawnBody> {
    const schema = media.schema ?? {};
    if (type === 'multipart/form-data') {
      return this.#checked(this.value(schema, 0, true), pointer).map((value) => ({
        type,
        ...multipartOf(value as Record<string, unknown>, schema, media),
      }));
    }
    if (/json/.test(type)) {
      return this.#checked(this.value(schema, 0), pointer).map((value) => ({
        type,
        value: JSON.stringify(value),
        headers: { 'content-type': type },
        shown: value,
      }));
    }
    return this.#checked(this.value(schema, 0, true), pointer).map((value) => ({
      type,
      value: textOf(value),
      headers: { 'content-type': type },
      shown: textOf(value).slice(0, 200),
    }));
  }

  /** Values of a JSON Schema (roughly: each is then checked against the schema itself). `files`: a binary string is a file's contents. */
  value(schema: JsonSchema, depth: number, files = false): fc.Arbitrary<unknown> {
    if (typeof schema.$ref === 'string') return this.value(this.#resolve(schema.$ref), depth + 1, files);
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (branches !== undefined)
      return fc.oneof(...branches.map((branch) => this.value(withBranch(withoutBranches(schema), branch), depth + 1, files)));
    if (Array.isArray(schema.allOf)) return this.value(mergeAll(schema, this.#resolveAll(schema.allOf as JsonSchema[])), depth, files);
    const type = (schema.type ?? typeOfConstraints(schema)) as string | string[] | undefined;
    if (Array.isArray(type)) return fc.oneof(...type.map((one) => this.value({ ...schema, type: one }, depth, files)));
    switch (type) {
      case 'string':
        return this.#string(schema, files);
      case 'integer':
      case 'number':
        return numberOf(schema, type);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return this.#array(schema, depth, files);
      case 'object':
        return this.#object(schema, depth, files);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  #string(schema: JsonSchema, files: boolean): fc.Arbitrary<string> {
    if (schema.format === 'binary' && files && this.#hints.binary !== undefined) return this.#hints.binary;
    if (schema.format === 'date-time') return this.#dateTime();
    if (schema.format === 'date') return this.#dateTime().map((text) => text.slice(0, 10));
    if (schema.format === 'email') return fc.emailAddress();
    if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl();
    if (schema.format === 'uuid') return fc.uuid();
    const minLength = Number(schema.minLength ?? 0);
    const maxLength = Number(schema.maxLength ?? Math.max(minLength, UNBOUNDED.stringLength));
    const length = (text: string) => [...text].length >= minLength && [...text].length <= maxLength;
    const units = ['grapheme-ascii', 'grapheme', 'binary-ascii'] as const;
    const any = fc.oneof(...units.map((unit) => fc.string({ unit, minLength, maxLength })));
    if (typeof schema.pattern !== 'string') return any.filter(length);
    const pattern = new RegExp(schema.pattern, 'u');
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter(length);
    } catch {
      // A pattern fast-check cannot draw from (a lookahead): any string, kept when the pattern takes it.
      return any.filter((text) => length(text) && pattern.test(text));
    }
  }

  #dateTime(): fc.Arbitrary<string> {
    const window = this.#hints.dateTimeWindowMs ?? { min: -10 * 365 * 86_400_000, max: 10 * 365 * 86_400_000 };
    const now = Date.now();
    const offsets = fc.constantFrom(0, 60, -300, 330, 840, -720);
    return fc.tuple(fc.integer({ min: now + window.min, max: now + window.max }), offsets).map(([at, offsetMinutes]) => {
      const local = new Date(at + offsetMinutes * 60_000).toISOString().slice(0, 19);
      if (offsetMinutes === 0) return `${local}Z`;
      const sign = offsetMinutes < 0 ? '-' : '+';
      const abs = Math.abs(offsetMinutes);
      return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    });
  }

  #array(schema: JsonSchema, depth: number, files: boolean): fc.Arbitrary<unknown[]> {
    const items = this.value((schema.items ?? {}) as JsonSchema, depth + 1, files);
    const minLength = Number(schema.minItems ?? 0);
    const maxLength = Math.min(Number(schema.maxItems ?? Number.POSITIVE_INFINITY), minLength + UNBOUNDED.arrayItems);
    if (schema.uniqueItems === true) return fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
    return fc.array(items, { minLength, maxLength });
  }

  #object(schema: JsonSchema, depth: number, files: boolean): fc.Arbitrary<Record<string, unknown>> {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required ?? []) as string[]);
    // Past the depth bound, only what is required: a recursive schema ends.
    const names = Object.keys(properties).filter((name) => depth < UNBOUNDED.depth || required.has(name));
    const record = fc.record(
      Object.fromEntries(names.map((name) => [name, this.#named(name, this.value(properties[name]!, depth + 1, files))])),
      { requiredKeys: names.filter((name) => required.has(name)) },
    );
    // A property that needs others (`dependentRequired`) is left out when they are: the draw keeps to the rule.
    const needs = Object.entries((schema.dependentRequired ?? {}) as Record<string, string[]>);
    const kept =
      needs.length === 0
        ? record
        : record.map((drawn) => {
            const out = { ...drawn };
            for (const [name, others] of needs) if (name in out && !others.every((other) => other in out)) delete out[name];
            return out;
          });
    const extra = schema.additionalProperties;
    if (extra === false || depth >= UNBOUNDED.depth) return kept;
    // Properties the schema does not name, where it allows them: a client may send them.
    const keys = this.value((schema.propertyNames ?? { type: 'string', maxLength: 12 }) as JsonSchema, depth + 1) as fc.Arbitrary<string>;
    const valueSchema = typeof extra === 'object' && extra !== null ? (extra as JsonSchema) : {};
    const more = fc.dictionary(
      keys.filter((key) => !(key in properties)),
      this.value(valueSchema, depth + 1, files),
      { maxKeys: 2 },
    );
    return fc.tuple(kept, more).map(([named, others]) => ({ ...others, ...named }));
  }

  /** A value for a parameter or property of this name: the hints' values mixed in (or alone), every one checked when `pointer` is given. */
  #named(name: string, drawn: fc.Arbitrary<unknown>, pointer?: string): fc.Arbitrary<unknown> {
    const only = this.#hints.only?.[name];
    const likely = this.#hints.likely?.[name];
    let value = drawn;
    if (only !== undefined) value = fc.constantFrom(...only);
    else if (likely !== undefined) value = fc.oneof({ arbitrary: drawn, weight: 1 }, { arbitrary: fc.constantFrom(...likely), weight: 3 });
    return pointer === undefined ? value : this.#checked(value, pointer);
  }

  /** Only values the document's schema at `pointer` takes. */
  #checked<T>(values: fc.Arbitrary<T>, pointer: string): fc.Arbitrary<T> {
    const validate = this.#validator(pointer);
    return values.filter((value) => validate(value) === true);
  }

  #validator(pointer: string): ValidateFunction {
    const validate = this.#ajv.getSchema(`openapi${pointer}`);
    if (validate === undefined) throw new Error(`no schema at ${pointer}`);
    return validate;
  }

  #resolve(ref: string): JsonSchema {
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are followed: ${ref}`);
    let node: unknown = this.#document;
    for (const token of ref.slice(2).split('/'))
      node = (node as Record<string, unknown>)[decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~')];
    if (typeof node !== 'object' || node === null) throw new Error(`${ref} names nothing`);
    return node as JsonSchema;
  }

  #resolveAll(schemas: JsonSchema[]): JsonSchema[] {
    return schemas.map((schema) => (typeof schema.$ref === 'string' ? this.#resolveAll([this.#resolve(schema.$ref)])[0]! : schema));
  }
}

/** allOf's parts as one schema: their constraints together (properties and `required` joined, the rest the last one's). */
function mergeAll(schema: JsonSchema, parts: JsonSchema[]): JsonSchema {
  const merged: JsonSchema = { ...schema };
  delete merged.allOf;
  for (const part of parts) {
    const properties = { ...((merged.properties ?? {}) as JsonSchema), ...((part.properties ?? {}) as JsonSchema) };
    const required = [...new Set([...((merged.required ?? []) as string[]), ...((part.required ?? []) as string[])])];
    Object.assign(merged, part, { properties, required });
  }
  return merged;
}

/**
 * A schema with one of its `anyOf`/`oneOf` branches: the branch's keywords over the schema's, its
 * `properties` merged one by one (`false`: the property is left out) and `required` joined.
 */
function withBranch(schema: JsonSchema, branch: JsonSchema): JsonSchema {
  const properties = { ...((schema.properties ?? {}) as Record<string, JsonSchema>) };
  for (const [name, own] of Object.entries((branch.properties ?? {}) as Record<string, JsonSchema | boolean>)) {
    if (own === false) delete properties[name];
    else if (typeof own === 'object') properties[name] = { ...properties[name], ...own };
  }
  const required = [...new Set([...((schema.required ?? []) as string[]), ...((branch.required ?? []) as string[])])];
  return { ...schema, ...branch, properties, required };
}

/** Whether a parameter goes with a body of this media type (`x-with-body`; undefined: no body). */
function onlyWith(parameter: Parameter, type: string | undefined): boolean {
  const types = parameter['x-with-body']?.types;
  return types === undefined || (type !== undefined && types.includes(type));
}

function withoutBranches(schema: JsonSchema): JsonSchema {
  const rest = { ...schema };
  delete rest.anyOf;
  delete rest.oneOf;
  return rest;
}

/** The type a schema without `type` means by its keywords. */
function typeOfConstraints(schema: JsonSchema): string | undefined {
  if (schema.properties !== undefined || schema.additionalProperties !== undefined || schema.required !== undefined) return 'object';
  if (schema.items !== undefined) return 'array';
  if (schema.pattern !== undefined || schema.minLength !== undefined || schema.format !== undefined) return 'string';
  if (schema.minimum !== undefined || schema.maximum !== undefined) return 'number';
  return undefined;
}

function numberOf(schema: JsonSchema, type: 'integer' | 'number'): fc.Arbitrary<number> {
  const low = Number(schema.minimum ?? schema.exclusiveMinimum ?? -UNBOUNDED.integer);
  const high = Number(schema.maximum ?? schema.exclusiveMaximum ?? UNBOUNDED.integer);
  const inside = (n: number) =>
    (schema.exclusiveMinimum === undefined || n > Number(schema.exclusiveMinimum)) &&
    (schema.exclusiveMaximum === undefined || n < Number(schema.exclusiveMaximum));
  if (type === 'integer') return fc.integer({ min: Math.ceil(low), max: Math.floor(high) }).filter(inside);
  return fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true }).filter(inside);
}

/** The path with its parameters in, and the query (`form`, exploded: an array repeats its name). */
function pathOf(template: string, parameters: Parameter[], drawn: unknown[]): string {
  let path = template;
  const query = new URLSearchParams();
  parameters.forEach((parameter, i) => {
    const value = drawn[i];
    if (value === undefined) return;
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(textOf(value)));
    if (parameter.in !== 'query') return;
    if (Array.isArray(value)) for (const item of value) query.append(parameter.name, textOf(item));
    else if (typeof value === 'object' && value !== null && parameter.content === undefined)
      for (const [key, item] of Object.entries(value)) query.append(key, textOf(item));
    else query.append(parameter.name, textOf(value));
  });
  const search = query.toString();
  return search === '' ? path : `${path}?${search}`;
}

/** A multipart body: one part per property; a binary one is a file, an object or array its JSON (or the encoding's type). */
function multipartOf(value: Record<string, unknown>, schema: JsonSchema, media: MediaType) {
  const form = new FormData();
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const shown: Record<string, unknown> = {};
  for (const [name, part] of Object.entries(value)) {
    const type = media.encoding?.[name]?.contentType;
    if (properties[name]?.format === 'binary' || properties[name]?.contentMediaType !== undefined) {
      form.append(name, new Blob([textOf(part)], { type: type ?? 'text/csv' }), `${name}.csv`);
      shown[name] = textOf(part).slice(0, 200);
    } else if (typeof part === 'object' && part !== null) {
      // As a generated client sends it: the JSON as the field's text.
      form.append(name, type === undefined ? JSON.stringify(part) : new Blob([JSON.stringify(part)], { type }));
      shown[name] = part;
    } else {
      form.append(name, textOf(part));
      shown[name] = part;
    }
  }
  return { value: form, headers: {}, shown };
}

/** A path as a reader reads it: its query decoded. */
function readable(path: string): string {
  try {
    return decodeURIComponent(path.replace(/\+/g, ' '));
  } catch {
    return path;
  }
}

/** A value as a parameter's or part's text. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function mediaOf(parameter: Parameter): string {
  return Object.keys(parameter.content ?? {})[0] ?? 'application/json';
}

/** A JSON pointer's escaping of one reference token (RFC 6901), then URI-encoded as Ajv reads refs. */
function pointerToken(token: string): string {
  return encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'));
}
