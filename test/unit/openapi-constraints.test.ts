import { describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../src/api/api-routes.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { API_FORMATS } from '../../src/api/schemas/api-formats.js';
import { parseRetryCodes } from '../../src/campaigns/control/retry-codes.js';
import { SPEC_FORMATS } from '../../src/campaigns/spec/spec-formats.js';
import { parseDuration, parseInstant } from '../../src/campaigns/spec/time-options.js';
import { toE164 } from '../../src/phone/e164.js';
import { accepts } from '../support/accepts.js';

type Json = Record<string, unknown>;
const document = openApiDocument(API_ROUTES, { version: 'test' }) as Json & { paths: Record<string, Record<string, Json>> };
const schemas = (document.components as { schemas: Record<string, Json> }).schemas;

/** The value at a path of keys below `value`, or undefined. */
function at(value: unknown, ...keys: (string | number)[]): unknown {
  return keys.reduce<unknown>((v, key) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined), value);
}

/** The OpenAPI document states what the server checks, so a client generated from it sends what the server takes. */
describe('the OpenAPI document states the constraints the server enforces', () => {
  const create = document.paths['/campaigns']!.post!;

  it('types the campaign spec as an object, in multipart and in the query, and the file as binary', () => {
    const parameters = create.parameters as Json[];
    const spec = parameters.find((p) => p.name === 'spec');
    expect(at(spec, 'content', 'application/json', 'schema')).toStrictEqual({ $ref: '#/components/schemas/CampaignSpec' });
    const multipart = at(create, 'requestBody', 'content', 'multipart/form-data');
    expect(at(multipart, 'schema', 'properties', 'spec')).toStrictEqual({ $ref: '#/components/schemas/CampaignSpec' });
    expect(at(multipart, 'schema', 'properties', 'file')).toMatchObject({ type: 'string', format: 'binary' });
    expect(at(multipart, 'encoding', 'spec', 'contentType')).toBe('application/json');
    for (const type of ['text/csv', 'text/plain', 'application/octet-stream']) {
      expect(at(create, 'requestBody', 'content', type, 'schema')).toMatchObject({ type: 'string', format: 'binary' });
    }
    const fields = at(schemas.CampaignSpec, 'properties') as Record<string, Json>;
    expect(fields.maxCost).toMatchObject({ type: 'number', minimum: 0 });
    expect(fields.at).toMatchObject({ pattern: SPEC_FORMATS.instant, format: 'date-time' });
    expect(fields.ttl).toMatchObject({ pattern: SPEC_FORMATS.ttl });
    expect(fields.window).toMatchObject({ pattern: SPEC_FORMATS.hours, not: { pattern: SPEC_FORMATS.emptyHours } });
    expect(fields.text).toMatchObject({ pattern: SPEC_FORMATS.text, not: { pattern: SPEC_FORMATS.blankText } });
    // The spec's rules between fields (held to the checks in openapi-spec-rules.test.ts), and every string bounded.
    expect(schemas.CampaignSpec).toMatchObject({ oneOf: expect.any(Array) as unknown, dependentRequired: { startDeadline: ['at'] } });
    for (const [name, field] of Object.entries(fields))
      if (field.type === 'string' && field.enum === undefined)
        expect(typeof field.maxLength === 'number' || !/[*+]|\{\d+,\}/.test(String(field.pattern)), name).toBe(true);
    // The query's spec goes with a CSV body only, and is needed with one; a URL too long for the server is declared.
    expect(spec?.['x-with-body']).toStrictEqual({ types: ['text/csv', 'text/plain', 'application/octet-stream'], required: true });
    expect(at(create, 'responses', '431')).toBeDefined();
    expect(fields.phoneNumberId).toMatchObject({ pattern: SPEC_FORMATS.phoneNumberId });
    expect(fields.priority).toMatchObject({ enum: ['high', 'normal', 'low'] });
    expect(fields.name).toMatchObject({ minLength: 1, maxLength: 100 });
    expect(schemas.CampaignSpec).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('states the Idempotency-Key form and the answers’ headers', () => {
    const key = (create.parameters as Json[]).find((p) => p.name === 'Idempotency-Key');
    expect(key?.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\x20-\\x7e]{1,200}$' });
    expect(at(create, 'responses', '201', 'headers', 'Location')).toMatchObject({ required: true });
    expect(at(create, 'responses', '201', 'headers', 'Idempotent-Replayed', 'schema')).toMatchObject({ const: 'true' });
    expect(at(create, 'responses', '200', 'headers', 'Idempotent-Replayed')).toBeDefined();
    for (const [path, operations] of Object.entries(document.paths)) {
      if (path === '/openapi.json') continue;
      for (const operation of Object.values(operations)) {
        for (const status of ['429', '503', 'default'])
          if (at(operation, 'responses', status) !== undefined)
            expect(at(operation, 'responses', status, 'headers', 'Retry-After'), `${path} ${status}`).toBeDefined();
      }
    }
    expect(at(document.paths['/campaigns/{id}/report']!.get, 'responses', '200', 'headers', 'Content-Disposition')).toBeDefined();
    expect(at(document.paths['/campaigns/{id}/rejects']!.get, 'responses', '200', 'headers', 'Content-Disposition')).toBeDefined();
    expect(at(document.paths['/campaigns/{id}/retarget']!.post, 'responses', '201', 'headers', 'Location')).toBeDefined();
  });

  it('states the forms of phone numbers, retry codes and times in the other routes', () => {
    const body = (path: string, method: string) =>
      at(document.paths[path]![method], 'requestBody', 'content', 'application/json', 'schema');
    expect(at(body('/optouts', 'post'), 'properties', 'phones', 'items', 'pattern')).toBe(API_FORMATS.e164);
    expect(at(body('/optouts', 'delete'), 'properties', 'phones', 'items', 'pattern')).toBe(API_FORMATS.e164);
    expect(at(body('/campaigns/{id}/retry', 'post'), 'properties', 'codes')).toMatchObject({
      minItems: 1,
      items: { pattern: API_FORMATS.retryCode },
    });
    expect(at(body('/campaigns/{id}/reschedule', 'post'), 'properties', 'at')).toMatchObject({
      pattern: SPEC_FORMATS.instant,
      format: 'date-time',
    });
    expect(at(body('/campaigns/{id}/retarget', 'post'), 'oneOf')).toHaveLength(2);
  });

  it('holds each pattern to the check it describes', () => {
    const instant = new RegExp(SPEC_FORMATS.instant);
    for (const value of [
      '2026-12-01T09:00:00+01:00',
      '2026-12-01T08:00Z',
      '2026-12-01T08:00:00.5Z',
      'tomorrow',
      '2026-12-01 09:00',
      '2026-12-01T09:00',
    ])
      expect(instant.test(value), value).toBe(accepts(() => parseInstant('at', value)));
    const duration = new RegExp(SPEC_FORMATS.duration);
    for (const value of ['90m', '6h', '2d', '1.5h', 'forever', '6 h', '10s'])
      expect(duration.test(value), value).toBe(accepts(() => parseDuration('validFor', value)));
    const code = new RegExp(API_FORMATS.retryCode);
    for (const value of ['131026', 'HTTP_502', 'TRANSPORT_CONNECT', 'WORKER_GAVE_UP', 'JOB_PAYLOAD_INVALID', 'NOPE', 'HTTP_5'])
      expect(code.test(value), value).toBe(accepts(() => parseRetryCodes(value)));
    // Every number the pattern takes has E.164's form; the server also checks it against the country's plan.
    const e164 = new RegExp(API_FORMATS.e164);
    for (const value of ['+4915112345678', '+14155551000']) expect(e164.test(value) && toE164(value).ok, value).toBe(true);
    for (const value of ['015112345678', '+0123', 'phone']) expect(e164.test(value), value).toBe(false);
  });
});
