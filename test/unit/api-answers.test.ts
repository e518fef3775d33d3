import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiRouteDefinition } from '../../src/api/api-route.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { problemOf } from '../../src/api/problem.js';
import { problemAnswers } from '../../src/api/schemas/problem-answers.js';
import { AnswerChecker } from '../support/api-answers.js';
import { AppError } from '../../src/errors/app-error.js';

const item = z.object({ id: z.string(), count: z.number().int().min(0) });

const routes: ApiRouteDefinition[] = [
  {
    method: 'GET',
    path: '/items/:id',
    operationId: 'getItem',
    summary: 'One item',
    scope: 'read',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The item', schema: item }, ...problemAnswers(404) },
  },
  {
    method: 'GET',
    path: '/items/export',
    operationId: 'exportItems',
    summary: 'Every item as CSV',
    scope: 'read',
    responses: { 200: { description: 'The items', contentType: 'text/csv' } },
  },
  {
    method: 'DELETE',
    path: '/items/:id',
    operationId: 'deleteItem',
    summary: 'Forget an item',
    scope: 'admin',
    responses: { 204: { description: 'Gone' } },
  },
];

describe('AnswerChecker', () => {
  const checker = new AnswerChecker(openApiDocument(routes, { version: '0' }));
  const notFound = problemOf(new AppError('CAMPAIGN_NOT_FOUND', 'No campaign x'), '/api/v1/items/x');

  it('passes answers as documented, by path template, with or without the base path and query', () => {
    expect(checker.check('GET', '/api/v1/items/a1?x=1', 200, 'application/json; charset=utf-8', { id: 'a1', count: 2 })).toStrictEqual([]);
    expect(checker.check('get', '/items/a1', 200, 'application/json', { id: 'a1', count: 0 })).toStrictEqual([]);
    expect(checker.check('GET', '/items/a1', 404, 'application/problem+json', notFound)).toStrictEqual([]);
    expect(checker.check('DELETE', '/items/a1', 204, null, undefined)).toStrictEqual([]);
  });

  it('reports a body its schema refuses: a wrong type, a missing field, one not documented', () => {
    expect(checker.check('GET', '/items/a1', 200, 'application/json', { id: 'a1', count: -1 })).toStrictEqual([
      'GET /items/a1 200: body/count must be >= 0 {"comparison":">=","limit":0}',
    ]);
    expect(checker.check('GET', '/items/a1', 200, 'application/json', { id: 'a1' })).toHaveLength(1);
    expect(checker.check('GET', '/items/a1', 200, 'application/json', { id: 'a1', count: 1, extra: true })[0]).toMatch(
      /must NOT have additional properties/,
    );
    expect(checker.check('GET', '/items/a1', 200, 'application/json', undefined)[0]).toMatch(/not read or does not parse/);
  });

  it('checks problem documents, by their status or the default answer', () => {
    expect(checker.check('GET', '/items/a1', 404, 'application/problem+json', { ...notFound, code: 7 })[0]).toMatch(
      /body\/code must be string/,
    );
    const unavailable = problemOf(new AppError('REDIS_UNAVAILABLE', 'down'));
    expect(checker.check('GET', '/items/a1', 503, 'application/problem+json', unavailable)).toStrictEqual([]);
    expect(checker.check('GET', '/items/a1', 503, 'application/json', unavailable)[0]).toMatch(
      /content type application\/json is not declared/,
    );
    // A refusal the route does not list is a gap in its documentation, even though `default` would describe the body.
    expect(checker.check('GET', '/items/a1', 409, 'application/problem+json', { ...notFound, status: 409 })).toStrictEqual([
      'GET /items/a1 409: status not documented (documented: 200, 404, default)',
    ]);
  });

  it('prefers a literal path to a template, and checks only the media type of CSV', () => {
    expect(checker.check('GET', '/items/export', 200, 'text/csv; charset=utf-8', undefined)).toStrictEqual([]);
    expect(checker.check('GET', '/items/export', 200, 'application/json', { id: 'x', count: 1 })[0]).toMatch(
      /not declared \(declared: text\/csv\)/,
    );
  });

  it('reports what the document does not have; a request of no route may be refused with a problem', () => {
    expect(checker.check('POST', '/items/a1', 200, 'application/json', {})).toStrictEqual([
      'POST /items/a1 200: no operation in the document',
    ]);
    expect(checker.check('GET', '/nothing', 404, 'application/problem+json', notFound)).toStrictEqual([]);
    expect(checker.check('GET', '/nothing', 401, 'application/problem+json', { ...notFound, status: 401 })).toStrictEqual([]);
    expect(checker.check('GET', '/nothing', 404, 'text/html', undefined)).toHaveLength(1);
    expect(checker.check('GET', '/nothing', 404, 'application/problem+json', { code: 'X' })[0]).toMatch(/must have required property/);
    expect(checker.check('DELETE', '/items/a1', 200, 'application/json', {})).toStrictEqual([
      'DELETE /items/a1 200: status not documented (documented: 204, default)',
    ]);
    expect(checker.check('DELETE', '/items/a1', 204, 'application/json', { a: 1 })).toStrictEqual([
      'DELETE /items/a1 204: a body (application/json) where none is declared',
    ]);
  });
});
