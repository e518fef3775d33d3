import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../files/package-root.js';
import type { ApiRouteDefinition } from '../api-route.js';
import { OPENAPI_PATH, openApiDocument } from '../openapi.js';

/**
 * GET /api/v1/openapi.json: the API's OpenAPI document, made once per process from the
 * routes' definitions. It needs no token (the API's onRequest hook lets exactly this route
 * through): it describes the API and holds nothing secret.
 */
export function registerOpenApiRoute(app: FastifyInstance, routes: readonly ApiRouteDefinition[]): void {
  let document: string | undefined;
  app.get(OPENAPI_PATH, async (_request, reply) => {
    document ??= JSON.stringify(openApiDocument(routes, { version: packageVersion() }));
    return reply.type('application/json; charset=utf-8').send(document);
  });
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
