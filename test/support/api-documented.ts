import { expect } from 'vitest';
import type { z } from 'zod';
import type { ApiRouteDefinition } from '../../src/api/api-route.js';
import { problemSchema, type Problem } from '../../src/api/problem.js';

/** An answer read as its route documents it: the status, and a body its schema accepts. */
export async function documented<T extends ApiRouteDefinition>(route: T, answer: Response, status: number): Promise<unknown> {
  const body: unknown = await answer.json();
  expect({ status: answer.status, body }).toMatchObject({ status });
  const documentedAnswer = route.responses[status];
  expect(documentedAnswer, `${route.operationId} documents ${status}`).toBeDefined();
  return (documentedAnswer!.schema as z.ZodType).parse(body);
}

/** The problem document of a refusal, with its status and code. */
export async function refused(answer: Response, status: number, code: string): Promise<Problem> {
  const body: unknown = await answer.json();
  expect({ status: answer.status, code: (body as { code?: string }).code }).toStrictEqual({ status, code });
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return problemSchema.parse(body);
}
