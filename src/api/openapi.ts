import { z } from 'zod';
import type { ApiAnswer, ApiRouteDefinition } from './api-route.js';
import { PROBLEM_CONTENT_TYPE, problemSchema } from './problem.js';
import { binarySchema, SchemaComponents, type JsonSchema } from './openapi-schemas.js';

/** Where the document is served, below the API's base (/api/v1), without a token. */
export const OPENAPI_PATH = '/openapi.json';

const BEARER = 'bearerToken';
const JSON_TYPE = 'application/json';
/** Headers OpenAPI describes elsewhere (security, media types): a header parameter of these names is ignored. */
const NOT_PARAMETERS = new Set(['authorization', 'content-type', 'accept']);

type Operation = Record<string, unknown>;

/** A header of an answer: what it says, and its form (default a string). */
export interface HeaderDoc {
  description: string;
  schema?: z.ZodType;
  required?: boolean;
}

/**
 * What a route's definition adds for the document only: the forms of the request headers it
 * checks, query parameters whose value is JSON text, the media type of multipart parts and the
 * headers of its answers. Checked by the route itself; stated here so a generated client knows.
 */
export interface RouteDocs {
  /** The schema of each header in `headers` that has a form (the route refuses others, 400). */
  headerSchemas?: Record<string, z.ZodType>;
  /** Query parameters sent as JSON text (`?spec={…}`, URL-encoded), with the schema of the JSON. */
  jsonQuery?: Record<string, z.ZodType>;
  /**
   * Query parameters taken only with a body of these media types (the route refuses them with another, 400), and needed
   * with one (`required`): OpenAPI has no keyword that ties a parameter to a body, so the parameter says it in
   * `x-with-body` (and its description, for people).
   */
  queryWithBody?: Record<string, WithBody>;
  /** The media type of each multipart part that is not a plain field (a JSON part: `application/json`). */
  partTypes?: Record<string, string>;
  /** The headers of each answer, by status. */
  responseHeaders?: Record<number, Record<string, HeaderDoc>>;
}

/** A parameter's tie to the body: the media types it goes with, and whether it is needed with them. */
export interface WithBody {
  types: readonly string[];
  required: boolean;
}

/** A route's definition with what the document says beyond it. */
export type DocumentedRoute = ApiRouteDefinition & RouteDocs;

/** Answers that say when to retry: a throttled caller (429) and a service not ready (503). */
const RETRY_AFTER: Record<string, HeaderDoc> = {
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: z.string().regex(/^\d+$/),
  },
};
const RETRY_STATUSES = new Set(['429', '503', 'default']);

/**
 * The OpenAPI 3.1 document of the HTTP API, made from the routes' definitions (their zod
 * schemas), so what is documented is what the server parses and answers.
 */
export function openApiDocument(routes: readonly ApiRouteDefinition[], options: { version: string }): Record<string, unknown> {
  const components = new SchemaComponents();
  // Answers first: a named schema's output form is its component; a request's differing input form gets its own name.
  const answers = routes.map((route) => responsesOf(route, components));
  const paths: Record<string, Record<string, Operation>> = {};
  routes.forEach((route, index) => {
    const path = openApiPath(route.path);
    const operations = (paths[path] ??= {});
    const method = route.method.toLowerCase();
    if (operations[method] !== undefined) throw new Error(`Two routes are ${route.method} ${route.path}`);
    operations[method] = operationOf(route, answers[index]!, components);
  });
  paths[OPENAPI_PATH] = { get: documentOperation() };
  return {
    openapi: '3.1.0',
    info: {
      title: 'campaign-worker',
      version: options.version,
      description: [
        "The HTTP API of `campaign serve`. Every request but this document's needs a token of `campaign tokens create`",
        "(`Authorization: Bearer cwt_…`); each operation's `x-scope` names the narrowest scope that may call it.",
        'Errors are RFC 9457 problem documents with a stable `code`.',
      ].join(' '),
    },
    servers: [{ url: '/api/v1' }],
    security: [{ [BEARER]: [] }],
    paths,
    components: {
      securitySchemes: {
        [BEARER]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'cwt_…',
          description: 'A token of `campaign tokens create --scope read|send|admin`; a wider scope may do what a narrower one may.',
        },
      },
      schemas: components.schemas,
    },
  };
}

/** fastify's path (`/campaigns/:id`, `/files/:name(^\\w+)`) as an OpenAPI path template (`/campaigns/{id}`). */
export function openApiPath(path: string): string {
  // `::` is fastify's escaped colon, a literal `:`.
  return path
    .split('::')
    .map((part) => part.replace(/:([A-Za-z_$][\w$]*)(\([^)]*\))?/g, '{$1}'))
    .join(':');
}

function operationOf(route: ApiRouteDefinition, responses: Record<string, unknown>, components: SchemaComponents): Operation {
  const id = route.operationId;
  const docs = route as RouteDocs;
  const query = route.query === undefined ? [] : parametersOf(route.query, 'query', components, `${id}.query`);
  const parameters = [
    ...pathParameters(route, components),
    ...query.map((parameter) => withBody(jsonQueryParameter(parameter, docs.jsonQuery, components, id), docs.queryWithBody)),
    ...headerParameters(route.headers, docs.headerSchemas, components, id),
  ];
  const requestBody = requestBodyOf(route, components);
  const needs = `Needs a token of scope \`${route.scope}\` or wider.`;
  return {
    operationId: id,
    summary: route.summary,
    description: route.description === undefined ? needs : `${route.description}\n\n${needs}`,
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(requestBody === undefined ? {} : { requestBody }),
    responses,
    security: [{ [BEARER]: [] }],
    'x-scope': route.scope,
  };
}

/** The path's parameters: those the params schema describes, and any other of the template as a string. */
function pathParameters(route: ApiRouteDefinition, components: SchemaComponents): Operation[] {
  const described = route.params === undefined ? [] : parametersOf(route.params, 'path', components, `${route.operationId}.params`);
  const names = [...openApiPath(route.path).matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const undescribed = names.filter((name) => !described.some((parameter) => parameter.name === name));
  return [...described, ...undescribed.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))];
}

/** One parameter per property of a params or query object; `required` as the schema says (a path's always). */
function parametersOf(schema: z.ZodType, place: 'path' | 'query', components: SchemaComponents, where: string): Operation[] {
  const json = components.convert(schema, 'input', where);
  const { properties, required } = objectParts(json, components, where);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: place,
    required: place === 'path' || required.has(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

/** The properties of an object schema, through `$ref`s and `allOf`s (a refined or intersected object). */
function objectParts(
  json: JsonSchema,
  components: SchemaComponents,
  where: string,
): { properties: Record<string, JsonSchema>; required: Set<string> } {
  const ref = typeof json.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(json.$ref)?.[1] : undefined;
  const own = ref === undefined ? json : components.schemas[ref];
  if (own === undefined) throw new Error(`${where}: ${String(json.$ref)} is not a component`);
  const properties = { ...((own.properties ?? {}) as Record<string, JsonSchema>) };
  const required = new Set((own.required ?? []) as string[]);
  for (const part of (own.allOf ?? []) as JsonSchema[]) {
    const inner = objectParts(part, components, where);
    Object.assign(properties, inner.properties);
    for (const name of inner.required) required.add(name);
  }
  if (Object.keys(properties).length === 0 && ref === undefined && own.type !== 'object' && own.allOf === undefined)
    throw new Error(`${where}: parameters need an object schema (z.object) to list them`);
  return { properties, required };
}

/** A query parameter whose value is JSON text: described by its JSON's schema (`content`), not as a plain string. */
function jsonQueryParameter(
  parameter: Operation,
  json: Record<string, z.ZodType> | undefined,
  components: SchemaComponents,
  id: string,
): Operation {
  const name = String(parameter.name);
  const schema = json?.[name];
  if (schema === undefined) return parameter;
  const rest = Object.fromEntries(Object.entries(parameter).filter(([key]) => key !== 'schema'));
  return { ...rest, content: { [JSON_TYPE]: { schema: components.convert(schema, 'input', `${id}.query.${name}`) } } };
}

function withBody(parameter: Operation, ties: Record<string, WithBody> | undefined): Operation {
  const tie = ties?.[String(parameter.name)];
  return tie === undefined ? parameter : { ...parameter, 'x-with-body': { types: [...tie.types], required: tie.required } };
}

function headerParameters(
  headers: Record<string, string> | undefined,
  schemas: Record<string, z.ZodType> | undefined,
  components: SchemaComponents,
  id: string,
): Operation[] {
  return Object.entries(headers ?? {})
    .filter(([name]) => !NOT_PARAMETERS.has(name.toLowerCase()))
    .map(([name, description]) => {
      const schema = schemas?.[name];
      const json = schema === undefined ? { type: 'string' } : components.convert(schema, 'input', `${id}.header.${name}`);
      return { name, in: 'header', required: false, description, schema: json };
    });
}

/** A JSON body (`body`) and the media types of an upload, each with its schema. */
function requestBodyOf(route: ApiRouteDefinition, components: SchemaComponents): Operation | undefined {
  if (route.body === undefined && route.upload === undefined) return undefined;
  const content: Record<string, Operation> = {};
  if (route.body !== undefined) content[JSON_TYPE] = { schema: components.convert(route.body, 'input', `${route.operationId}.body`) };
  const parts = (route as RouteDocs).partTypes;
  for (const [type, schema] of Object.entries(route.upload?.contentTypes ?? {})) {
    const where = `${route.operationId}.upload.${type}`;
    content[type] = { schema: schema === undefined ? binarySchema() : components.convert(schema, 'input', where, true) };
    // A multipart part's own media type (the spec as JSON), as OpenAPI's `encoding` states it.
    if (type === 'multipart/form-data' && parts !== undefined) {
      content[type] = { ...content[type], encoding: Object.fromEntries(Object.entries(parts).map(([n, t]) => [n, { contentType: t }])) };
    }
  }
  // The route reads a missing JSON body as `{}`: a body schema that takes `{}` makes the body optional.
  const optional = route.upload === undefined && route.body?.safeParse({}).success === true;
  return {
    ...(route.upload === undefined ? {} : { description: route.upload.description }),
    required: !optional,
    content,
  };
}

function responsesOf(route: ApiRouteDefinition, components: SchemaComponents): Record<string, unknown> {
  const entries = Object.entries(route.responses as Record<string, ApiAnswer>);
  if (entries.length === 0) throw new Error(`${route.operationId} documents no answer`);
  const headers = (route as RouteDocs).responseHeaders ?? {};
  const listed = entries.map(([status, answer]): [string, unknown] => [
    status,
    withHeaders(answerOf(answer, components, `${route.operationId}.${status}`), status, headers[Number(status)], components),
  ]);
  // Any route can also fail on what is not its own (Redis away, a bug): the error handler answers a problem document.
  const other = answerOf(
    { description: 'Another problem (REDIS_UNAVAILABLE, INTERNAL_ERROR, …)', schema: problemSchema, contentType: PROBLEM_CONTENT_TYPE },
    components,
    `${route.operationId}.default`,
  );
  return Object.fromEntries<unknown>([...listed, ['default', withHeaders(other, 'default', undefined, components)]]);
}

/** An answer with its headers: the route's own for the status, and Retry-After where retrying later is the remedy. */
function withHeaders(
  answer: Record<string, unknown>,
  status: string,
  own: Record<string, HeaderDoc> | undefined,
  components: SchemaComponents,
): Record<string, unknown> {
  const all = { ...(RETRY_STATUSES.has(status) ? RETRY_AFTER : {}), ...own };
  if (Object.keys(all).length === 0) return answer;
  const headers = Object.fromEntries(
    Object.entries(all).map(([name, header]) => [
      name,
      {
        description: header.description,
        ...(header.required === true ? { required: true } : {}),
        schema: header.schema === undefined ? { type: 'string' } : components.convert(header.schema, 'output', `header.${name}`),
      },
    ]),
  );
  return { ...answer, headers };
}

function answerOf(answer: ApiAnswer, components: SchemaComponents, where: string): Record<string, unknown> {
  if (answer.schema === undefined && answer.contentType === undefined) return { description: answer.description };
  const type = answer.contentType ?? JSON_TYPE;
  const json = isJson(type);
  const schema = answer.schema === undefined ? (json ? undefined : { type: 'string' }) : components.convert(answer.schema, 'output', where);
  const content: Record<string, unknown> = { [type]: schema === undefined ? {} : { schema } };
  // The same answer in other media types (a query picks one): each with its own body.
  for (const [other, body] of Object.entries(answer.alternatives ?? {})) {
    const otherSchema =
      body === undefined ? (isJson(other) ? undefined : { type: 'string' }) : components.convert(body, 'output', `${where}.${other}`);
    content[other] = otherSchema === undefined ? {} : { schema: otherSchema };
  }
  return { description: answer.description, content };
}

/** application/json and its `+json` kin (application/problem+json). */
export function isJson(contentType: string): boolean {
  return /^application\/(?:[\w.-]+\+)?json\b/i.test(contentType);
}

/** This document's own operation: no token, as it describes and holds nothing secret. */
function documentOperation(): Operation {
  return {
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 document of this API, made from the routes it serves. Needs no token.',
    security: [],
    responses: { 200: { description: 'The OpenAPI document', content: { [JSON_TYPE]: { schema: { type: 'object' } } } } },
  };
}
