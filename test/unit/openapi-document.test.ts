import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiRouteDefinition } from '../../src/api/api-route.js';
import { API_ROUTES } from '../../src/api/api-routes.js';
import { OPENAPI_PATH, openApiDocument, openApiPath } from '../../src/api/openapi.js';
import { problemAnswers } from '../../src/api/schemas/problem-answers.js';
import { AnswerChecker } from '../support/api-answers.js';

interface Doc {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, unknown> };
}

/** What the OpenAPI 3.1 schema says is wrong with a document (none: `[]`). */
async function documentErrors(document: object): Promise<unknown[]> {
  const result = await new Validator().validate(structuredClone(document) as Parameters<Validator['validate']>[0]);
  return result.valid ? [] : [result.errors];
}

/** JSON pointers of every schema in the document's operations: parameters, request bodies and answers. */
function schemaPointers(document: Doc): string[] {
  const pointers: string[] = [];
  const esc = (token: string): string => encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'));
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const at = `#/paths/${esc(path)}/${method}`;
      // A parameter sent as JSON text (`?spec={…}`) has its schema under `content`.
      ((operation.parameters ?? []) as { content?: unknown }[]).forEach((p, i) =>
        pointers.push(`${at}/parameters/${i}/${p.content === undefined ? 'schema' : `content/${esc('application/json')}/schema`}`),
      );
      const body = operation.requestBody as { content: Record<string, { schema?: unknown }> } | undefined;
      for (const [type, media] of Object.entries(body?.content ?? {}))
        if (media.schema !== undefined) pointers.push(`${at}/requestBody/content/${esc(type)}/schema`);
      for (const [status, answer] of Object.entries(
        operation.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>,
      ))
        for (const [type, media] of Object.entries(answer.content ?? {}))
          if (media.schema !== undefined) pointers.push(`${at}/responses/${status}/content/${esc(type)}/schema`);
    }
  }
  return pointers;
}

describe('the OpenAPI document of API_ROUTES', () => {
  const document = openApiDocument(API_ROUTES, { version: '1.2.3' }) as unknown as Doc & Record<string, unknown>;

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'campaign-worker', version: '1.2.3' },
      servers: [{ url: '/api/v1' }],
    });
    expect(await documentErrors(document)).toStrictEqual([]);
  });

  it('is checked by a validator that refuses a broken document', async () => {
    const broken = structuredClone(document);
    (broken.paths['/campaigns']!.get!.parameters as { in: string }[])[0]!.in = 'cookie-jar';
    expect(await documentErrors(broken)).not.toStrictEqual([]);
  });

  it('has every route, with its operationId, scope and bearer security', () => {
    expect(API_ROUTES.length).toBeGreaterThan(0);
    for (const route of API_ROUTES) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toMatchObject({
        operationId: route.operationId,
        summary: route.summary,
        'x-scope': route.scope,
        security: [{ bearerToken: [] }],
      });
    }
    const operationIds = Object.values(document.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it('describes its own route as needing no token', () => {
    expect(document.paths[OPENAPI_PATH]?.get).toMatchObject({ operationId: 'getOpenApiDocument', security: [] });
  });

  it('has named schemas (Problem, Campaign) once, in components, referenced with $ref', () => {
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['Problem', 'Campaign']));
    const text = JSON.stringify(document);
    expect(text).not.toContain('$defs');
    expect(text).not.toContain('"$schema"');
    expect(text.match(/"title":"campaign-worker"/g)).toHaveLength(1);
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of refs) expect(document.components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined();
  });

  it('compiles every schema of every operation with Ajv 2020', () => {
    const checker = new AnswerChecker(document);
    const pointers = schemaPointers(document);
    expect(pointers.length).toBeGreaterThan(API_ROUTES.length);
    for (const pointer of pointers) expect(() => checker.validator(pointer), pointer).not.toThrow();
  });
});

const thing = z.object({ size: z.number().int().default(1), label: z.string() }).meta({ id: 'OpenApiTestThing' });
const other = z.object({ weight: z.number() }).meta({ id: 'OpenApiTestClash' });
const clash = z.object({ height: z.number() }).meta({ id: 'OpenApiTestClash' });

/** A route of every shape api-route.ts allows: path params, query, JSON body, upload, headers, CSV answers. */
const uploadRoute = {
  method: 'POST',
  path: '/campaigns/:id/files/:name(^\\w+)',
  operationId: 'testUpload',
  summary: 'An upload',
  description: 'Takes a file.',
  scope: 'send',
  params: z.object({ id: z.string().meta({ description: 'The campaign.' }) }),
  query: z.object({ dryRun: z.stringbool().optional(), mode: z.enum(['a', 'b']) }),
  body: thing,
  upload: {
    description: 'The rows, as CSV or a form',
    contentTypes: {
      'text/csv': undefined,
      'multipart/form-data': z.object({ file: z.custom<Buffer>(), spec: thing.optional() }),
    },
  },
  headers: { 'Idempotency-Key': 'Repeats answer the first call.', Authorization: 'documented by security' },
  responses: {
    201: { description: 'Made', schema: thing },
    200: { description: 'The rows', contentType: 'text/csv' },
    204: { description: 'Nothing' },
    ...problemAnswers(400, 409),
  },
} satisfies ApiRouteDefinition;

describe('openApiDocument: every shape of route', () => {
  const document = openApiDocument([uploadRoute], { version: '0' }) as unknown as Doc;
  const operation = document.paths['/campaigns/{id}/files/{name}']?.post as Record<string, unknown>;

  it('turns fastify paths into templates', () => {
    expect(openApiPath('/campaigns/:id')).toBe('/campaigns/{id}');
    expect(openApiPath('/a/:x(^\\d+)-:y/b')).toBe('/a/{x}-{y}/b');
    expect(openApiPath('/time/12::00')).toBe('/time/12:00');
  });

  it('lists path, query and header parameters', () => {
    expect(operation.parameters).toStrictEqual([
      { name: 'id', in: 'path', required: true, description: 'The campaign.', schema: { type: 'string', description: 'The campaign.' } },
      { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'dryRun', in: 'query', required: false, schema: expect.objectContaining({ type: 'string' }) as unknown },
      { name: 'mode', in: 'query', required: true, schema: { type: 'string', enum: ['a', 'b'] } },
      { name: 'Idempotency-Key', in: 'header', required: false, description: 'Repeats answer the first call.', schema: { type: 'string' } },
    ]);
  });

  it('describes the JSON body and each upload type; a file part is binary', () => {
    const body = operation.requestBody as { required: boolean; description: string; content: Record<string, { schema: unknown }> };
    expect(body.required).toBe(true);
    expect(body.description).toBe('The rows, as CSV or a form');
    expect(Object.keys(body.content)).toStrictEqual(['application/json', 'text/csv', 'multipart/form-data']);
    expect(body.content['text/csv']!.schema).toStrictEqual({ type: 'string', format: 'binary' });
    expect(body.content['multipart/form-data']!.schema).toMatchObject({
      properties: { file: { type: 'string', format: 'binary' }, spec: { $ref: '#/components/schemas/OpenApiTestThingInput' } },
    });
  });

  it("names a schema's request form apart when it differs from its answer form", () => {
    // Answer: `size` is always there (its default applied); request: it may be left out.
    expect(document.components.schemas.OpenApiTestThing).toMatchObject({ required: ['size', 'label'] });
    expect(document.components.schemas.OpenApiTestThingInput).toMatchObject({ required: ['label'] });
    expect((operation.requestBody as { content: Record<string, unknown> }).content['application/json']).toStrictEqual({
      schema: { $ref: '#/components/schemas/OpenApiTestThingInput' },
    });
  });

  it('answers by status with their media types, and a problem document by default', () => {
    const responses = operation.responses as Record<string, { content?: Record<string, unknown> }>;
    expect(Object.keys(responses).sort()).toStrictEqual(['200', '201', '204', '400', '409', 'default']);
    expect(responses['200']!.content).toStrictEqual({ 'text/csv': { schema: { type: 'string' } } });
    expect(responses['201']!.content).toStrictEqual({ 'application/json': { schema: { $ref: '#/components/schemas/OpenApiTestThing' } } });
    expect(responses['204']!.content).toBeUndefined();
    expect(responses.default!.content).toStrictEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    expect(operation).toMatchObject({ description: 'Takes a file.\n\nNeeds a token of scope `send` or wider.', 'x-scope': 'send' });
  });

  it('is a valid document whose schemas compile', async () => {
    expect(await documentErrors(document)).toStrictEqual([]);
    const checker = new AnswerChecker(document);
    for (const pointer of schemaPointers(document)) expect(() => checker.validator(pointer), pointer).not.toThrow();
  });

  it('refuses two different schemas of one id, and two routes of one method and path', () => {
    const answering = (schema: z.ZodType, operationId: string): ApiRouteDefinition => ({
      ...uploadRoute,
      operationId,
      path: `/${operationId}`,
      responses: { 200: { description: 'x', schema } },
    });
    expect(() => openApiDocument([answering(other, 'a'), answering(clash, 'b')], { version: '0' })).toThrow(/OpenApiTestClash/);
    expect(() => openApiDocument([uploadRoute, uploadRoute], { version: '0' })).toThrow(/Two routes/);
  });
});
