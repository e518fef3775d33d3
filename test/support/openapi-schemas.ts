import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * The schemas of Meta's OpenAPI spec (v23.0, patched per reference §9), one at a time.
 *
 * Why not just validate against `Message`: the spec leans on OpenAPI `discriminator`s
 * (`Message`, `TemplateComponent`, `ParameterObject`, `ButtonParameterObject`) to pick the
 * schema for each `type`, and ajv does not apply them (with `discriminator: true` it refuses
 * to compile: "mapping is not supported"). Where there is no `oneOf` next to them (every one
 * but `Message`), the base schema only checks `type`'s enum, and `TemplateComponent.parameters`
 * has no `items` at all, so no parameter is ever checked. `dispatch()` applies the mapping
 * by hand, so a caller can validate each object against the schema meant for it.
 */

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface SchemaObject {
  discriminator?: { propertyName: string; mapping?: Record<string, string> };
}

const SPEC = new URL('../fixtures/reference/openapi/business-messaging-api_v23.0.patched.json', import.meta.url);
const spec = JSON.parse(readFileSync(SPEC, 'utf8')) as { components: { schemas: Record<string, SchemaObject> } };

// Setup from reference "Files": draft 2020-12, strict off (the spec has OpenAPI keywords), formats on.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'meta', components: spec.components });

/**
 * What the spec objects to in `value`, validated against `schema`: a name under
 * `components/schemas` ("TextParameter") or a JSON pointer below it
 * ("TextMessage/allOf/1/properties/text"). Each error reads `<at><path> <message> [<schema>]`,
 * `at` being where `value` sits in the document being walked. Empty when valid.
 */
export function schemaErrors(schema: string, value: unknown, at = ''): string[] {
  const validate = ajv.getSchema(`meta#/components/schemas/${schema}`);
  if (validate === undefined) throw new Error(`no schema ${schema} in the patched spec`);
  if (validate(value) === true) return [];
  return (validate.errors ?? []).map((error: ErrorObject) => `${at}${error.instancePath} ${error.message ?? error.keyword} [${schema}]`);
}

/**
 * The schema `base`'s discriminator maps `value` to (e.g. ParameterObject + `{type: "image"}`
 * → ImageParameter), or `base` itself when the value's type is not in the mapping, so that
 * the base schema's own enum reports the unknown type.
 */
export function dispatch(base: string, value: unknown): string {
  const discriminator = spec.components.schemas[base]?.discriminator;
  if (discriminator?.mapping === undefined) throw new Error(`${base} has no discriminator mapping`);
  const tag = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[discriminator.propertyName] : undefined;
  if (typeof tag !== 'string' || !Object.hasOwn(discriminator.mapping, tag)) return base;
  return (discriminator.mapping[tag] ?? base).replace('#/components/schemas/', '');
}
