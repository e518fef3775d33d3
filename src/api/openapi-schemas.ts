import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';

/** A JSON Schema (draft 2020-12) as zod writes it. */
export type JsonSchema = Record<string, unknown>;

/** Where a schema is read: a request is described by what it takes (`input`), an answer by what it gives (`output`). */
export type SchemaSide = 'input' | 'output';

const COMPONENT_REF = '#/components/schemas/';

/** A part of an upload that no JSON Schema describes (a file as a stream or Buffer) is bytes. */
const BINARY: JsonSchema = { type: 'string', format: 'binary' };

/**
 * The document's `components.schemas`, filled as route schemas are converted: a schema named
 * with `.meta({ id })` (Problem, Campaign) is written once there and referenced with `$ref`.
 * Schemas zod extracts without a name (recursive ones) are named after where they were met.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  /**
   * The JSON Schema of `schema` for the document, its named parts moved to the components.
   * `where` names the spot (`listCampaigns.200`) for unnamed parts; `files`: an upload's
   * parts, where a schema with no JSON form is a file's bytes.
   */
  convert(schema: z.ZodType, side: SchemaSide, where: string, files = false): JsonSchema {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io: side,
      ...(files ? { unrepresentable: () => ({ ...BINARY }) } : {}),
    }) as JsonSchema;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    const names = new Map(Object.keys(defs).map((name) => [name, componentName(name, where)]));
    // The same id read as a request's input can differ from the answer's output (defaults, transforms):
    // answers are converted first, and a request's differing form is named `<id>Input`.
    if (side === 'input') {
      const rewritten = rewriteDefs(defs, names);
      for (const [def, name] of names) {
        const known = this.schemas[name];
        if (known !== undefined && !isDeepStrictEqual(known, rewritten[def])) names.set(def, `${name}Input`);
      }
    }
    // A schema that refers to itself at its root (`#`) goes to the components too: `#` is the document there.
    const selfName = containsRef(json, '#') ? componentName(where, where) : undefined;
    const rewrite = (value: unknown): unknown => rewriteRefs(value, names, selfName);
    for (const [def, schema] of Object.entries(rewriteDefs(defs, names, selfName))) this.#add(names.get(def)!, schema);
    if (selfName === undefined) return rewrite(json) as JsonSchema;
    this.#add(selfName, rewrite(json) as JsonSchema);
    return { $ref: `${COMPONENT_REF}${selfName}` };
  }

  #add(name: string, schema: JsonSchema): void {
    const known = this.schemas[name];
    if (known !== undefined && !isDeepStrictEqual(known, schema))
      throw new Error(`Two different schemas are named ${name} (.meta({ id })): the OpenAPI document needs one name per schema`);
    this.schemas[name] = schema;
  }
}

/** The binary schema of an upload's media type that names no schema of its own. */
export function binarySchema(): JsonSchema {
  return { ...BINARY };
}

function rewriteRefs(value: unknown, names: Map<string, string>, selfName: string | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, names, selfName));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$ref' && typeof item === 'string') out[key] = rewriteRef(item, names, selfName);
    else out[key] = rewriteRefs(item, names, selfName);
  }
  return out;
}

function rewriteRef(ref: string, names: Map<string, string>, selfName: string | undefined): string {
  if (ref === '#' && selfName !== undefined) return `${COMPONENT_REF}${selfName}`;
  const def = /^#\/\$defs\/([^/]+)$/.exec(ref)?.[1];
  if (def !== undefined && names.has(def)) return `${COMPONENT_REF}${names.get(def)!}`;
  return ref;
}

function containsRef(value: unknown, ref: string): boolean {
  if (Array.isArray(value)) return value.some((item) => containsRef(item, ref));
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, item]) => (key === '$ref' ? item === ref : containsRef(item, ref)));
}

/** A def's component name: its id, or for zod's own `__schemaN` one made from where it was met. */
function componentName(defName: string, where: string): string {
  const named = defName.startsWith('__schema') ? `${where}.${defName.replace(/^_+/, '')}` : defName;
  return named.replace(/[^A-Za-z0-9._-]/g, '_');
}

function rewriteDefs(defs: Record<string, JsonSchema>, names: Map<string, string>, selfName?: string): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, rewriteRefs(def, names, selfName) as JsonSchema]));
}
