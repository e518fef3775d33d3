import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AllowedMethods } from '../../src/api/allowed-methods.js';
import { problemSchema } from '../../src/api/problem.js';
import { routerErrorOptions } from '../../src/http/router-errors.js';

describe('router refusals as problem documents', () => {
  it('answers a path segment over maxParamLength 414 API_URI_TOO_LONG, a malformed escape 400', async () => {
    const app = Fastify({ ...routerErrorOptions(), routerOptions: { maxParamLength: 8 } });
    app.get('/items/:id', (_request, reply) => reply.send({ ok: true }));
    try {
      const long = await app.inject({ method: 'GET', url: '/items/123456789' });
      expect(long.statusCode).toBe(414);
      expect(long.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(problemSchema.parse(long.json())).toMatchObject({ status: 414, code: 'API_URI_TOO_LONG', instance: '/items/123456789' });
      const escape = await app.inject({ method: 'GET', url: '/items/%E0%A4%A' });
      expect(problemSchema.parse(escape.json())).toMatchObject({ status: 400, code: 'API_REQUEST_INVALID' });
      expect((await app.inject({ method: 'GET', url: '/items/12345678' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('AllowedMethods', () => {
  it('lists the methods of the routes a path matches, HEAD with GET, none for a path no route has', () => {
    const methods = new AllowedMethods();
    methods.add('/api/v1/campaigns', 'GET');
    methods.add('/api/v1/campaigns', ['POST']);
    methods.add('/api/v1/campaigns/:id', 'GET');
    methods.add('/api/v1/campaigns/:id/pause', 'POST');
    methods.add('/api/v1/files/:name(^\\w+).csv', 'DELETE');
    expect(methods.at('/api/v1/campaigns')).toStrictEqual(['GET', 'HEAD', 'POST']);
    expect(methods.at('/api/v1/campaigns/c1')).toStrictEqual(['GET', 'HEAD']);
    expect(methods.at('/api/v1/campaigns/c1/pause')).toStrictEqual(['POST']);
    expect(methods.at('/api/v1/campaigns/c1/unpause')).toStrictEqual([]);
    expect(methods.at('/api/v1/campaigns/')).toStrictEqual([]);
    expect(methods.at('/api/v1/files/abc.csv')).toStrictEqual(['DELETE']);
  });
});
