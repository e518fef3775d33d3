import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { overlaid, type OpenApiDocument } from './openapi-overlay.js';

/**
 * The schemas of Meta's OpenAPI spec (v23.0, patched per reference §9), with the overlay of
 * test/support/openapi-overlay.ts (fields Meta's pages document since, and further defects of
 * the file), one at a time.
 *
 * Why not just validate against `Message`: the spec leans on OpenAPI `discriminator`s
 * (`Message`, `TemplateComponent`, `ParameterObject`, `ButtonParameterObject`) to pick the
 * schema for each `type`, and ajv does not apply them (with `discriminator: true` it refuses
 * to compile: "mapping is not supported"). Where there is no `oneOf` next to them (every one
 * but `Message`), the base schema only checks `type`'s enum, and `TemplateComponent.parameters`
 * has no `items` at all, so no parameter is ever checked. `dispatch()` applies the mapping
 * by hand, so a caller can validate each object against the schema meant for it.
 *
 * Why a strict copy: no schema of the spec refuses a property it does not declare (none sets
 * `additionalProperties: false` where it matters), so a misspelt optional field in an answer
 * or a webhook would pass. `strictSchemaErrors()` validates against a copy in which every
 * object schema refuses what it does not declare (`unevaluatedProperties: false`, which sees
 * through `allOf` and `$ref`); what Meta documents beyond v23.0 is declared by the overlay.
 */

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Json = Record<string, unknown>;

const SPEC = new URL('../fixtures/reference/openapi/business-messaging-api_v23.0.patched.json', import.meta.url);

/** The patched spec with the overlay applied: what every check of ours validates against. */
export const openApi: OpenApiDocument = overlaid(JSON.parse(readFileSync(SPEC, 'utf8')) as OpenApiDocument);

// Setup from reference "Files": draft 2020-12, strict off (the spec has OpenAPI keywords), formats on.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'meta', components: openApi.components, paths: openApi.paths });
ajv.addSchema({ $id: 'meta-strict', ...closedCopy(openApi) });

const compiled = new Map<string, ValidateFunction>();

function validatorAt(document: 'meta' | 'meta-strict', pointer: string): ValidateFunction {
  const key = `${document}#${pointer}`;
  let validate = compiled.get(key);
  if (validate === undefined) {
    const fragment = pointer
      .split('/')
      .map((token) => encodeURIComponent(token))
      .join('/');
    validate = ajv.getSchema(`${document}#${fragment}`);
    if (validate === undefined) throw new Error(`no schema at ${pointer} in the spec`);
    compiled.set(key, validate);
  }
  return validate;
}

/** `detailed`: name the property refused and the values allowed (ajv's messages do not). */
function errorsOf(validate: ValidateFunction, value: unknown, at: string, label: string, detailed = true): string[] {
  if (validate(value) === true) return [];
  return (validate.errors ?? []).map(
    (error: ErrorObject) => `${at}${error.instancePath} ${detailed ? describe(error) : (error.message ?? error.keyword)} [${label}]`,
  );
}

function describe(error: ErrorObject): string {
  const message = error.message ?? error.keyword;
  if (error.keyword === 'unevaluatedProperties' || error.keyword === 'additionalProperties') {
    const params = error.params as { unevaluatedProperty?: string; additionalProperty?: string };
    const name = params.unevaluatedProperty ?? params.additionalProperty;
    return name === undefined ? message : `${message}: ${name}`;
  }
  if (error.keyword === 'enum') return `${message}: ${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)}`;
  return message;
}

/**
 * What the spec objects to in `value`, validated against `schema`: a name under
 * `components/schemas` ("TextParameter") or a JSON pointer below it
 * ("TextMessage/allOf/1/properties/text"). Each error reads `<at><path> <message> [<schema>]`,
 * `at` being where `value` sits in the document being walked. Empty when valid.
 */
export function schemaErrors(schema: string, value: unknown, at = ''): string[] {
  return errorsOf(validatorAt('meta', `/components/schemas/${schema}`), value, at, schema, false);
}

/** As schemaErrors, against the strict copy: a property no schema declares is an error too. */
export function strictSchemaErrors(schema: string, value: unknown, at = ''): string[] {
  return errorsOf(validatorAt('meta-strict', `/components/schemas/${schema}`), value, at, schema);
}

/**
 * As strictSchemaErrors for any schema of the document by its JSON pointer (unescaped tokens,
 * e.g. `/paths/…/get/responses/200/content/application/json/schema` split on its own `/`s is
 * ambiguous, so the caller passes the tokens).
 */
export function strictErrorsAt(tokens: readonly string[], value: unknown, at = '', label = tokens.join('/')): string[] {
  const pointer = `/${tokens.map((token) => token.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
  return errorsOf(validatorAt('meta-strict', pointer), value, at, label);
}

/**
 * The schema `base`'s discriminator maps `value` to (e.g. ParameterObject + `{type: "image"}`
 * → ImageParameter), or `base` itself when the value's type is not in the mapping, so that
 * the base schema's own enum reports the unknown type.
 */
export function dispatch(base: string, value: unknown): string {
  const discriminator = (openApi.components.schemas[base] as { discriminator?: { propertyName: string; mapping?: Record<string, string> } })
    ?.discriminator;
  if (discriminator?.mapping === undefined) throw new Error(`${base} has no discriminator mapping`);
  const tag = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[discriminator.propertyName] : undefined;
  if (typeof tag !== 'string' || !Object.hasOwn(discriminator.mapping, tag)) return base;
  return (discriminator.mapping[tag] ?? base).replace('#/components/schemas/', '');
}

// ---- the strict copy -----------------------------------------------------------------------

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refName(ref: unknown): string | undefined {
  return typeof ref === 'string' && ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : undefined;
}

/**
 * The document with every object schema closed: `unevaluatedProperties: false` where a schema
 * declares properties (or composes them with allOf) and says nothing of others. A schema
 * applied in place beside others (an allOf member; a oneOf/anyOf member or `then`/`else` of a
 * schema with properties of its own) is left open, as is a component referenced from such a
 * place: closed, it would refuse its siblings' properties. The schema that holds it is closed
 * instead, and sees the properties every member declares.
 */
function closedCopy(document: OpenApiDocument): { components: Json; paths: Json } {
  const copy = structuredClone({ components: document.components, paths: document.paths }) as { components: Json; paths: Json };
  const schemas = (copy.components as { schemas: Record<string, Json> }).schemas;
  const open = new Set<string>();
  const noteInPlace = (member: unknown) => {
    const name = isObject(member) ? refName(member.$ref) : undefined;
    if (name !== undefined) open.add(name);
  };
  walk(copy, (node) => {
    for (const member of list(node.allOf)) noteInPlace(member);
    if (isObject(node.properties)) {
      for (const member of [...list(node.oneOf), ...list(node.anyOf), node.then, node.else]) noteInPlace(member);
    }
  });
  for (const [name, schema] of Object.entries(schemas)) close(schema, !open.has(name));
  walk(copy.paths, (node) => {
    if (isObject(node.content)) {
      for (const media of Object.values(node.content)) if (isObject(media) && isObject(media.schema)) close(media.schema, true);
    }
  });
  return copy;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function walk(node: unknown, visit: (node: Json) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
    return;
  }
  if (!isObject(node)) return;
  visit(node);
  for (const value of Object.values(node)) walk(value, visit);
}

/** Closes `schema` (when `closable`) and every schema below it that stands on its own. */
function close(schema: unknown, closable: boolean): void {
  if (!isObject(schema) || schema.$ref !== undefined) return;
  const composes = isObject(schema.properties) || Array.isArray(schema.allOf);
  if (closable && composes && schema.additionalProperties === undefined && schema.unevaluatedProperties === undefined) {
    schema.unevaluatedProperties = false;
  }
  if (isObject(schema.properties)) for (const property of Object.values(schema.properties)) close(property, true);
  if (isObject(schema.items)) close(schema.items, true);
  for (const item of list(schema.prefixItems)) close(item, true);
  if (isObject(schema.additionalProperties)) close(schema.additionalProperties, true);
  if (isObject(schema.$defs)) for (const item of Object.values(schema.$defs)) close(item, true);
  // Alternatives (oneOf, anyOf, then/else) are whole schemas, unless they complete their holder's
  // properties or their holder itself completes another's (an allOf member).
  const whole = closable && !isObject(schema.properties);
  for (const member of [...list(schema.oneOf), ...list(schema.anyOf), schema.then, schema.else]) close(member, whole);
  for (const member of list(schema.allOf)) close(member, false);
}
