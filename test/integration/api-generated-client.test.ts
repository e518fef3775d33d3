import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/files/package-root.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { phoneNumber } from '../support/csv-files.js';

const run = promisify(execFile);

/** The emitted client's function, as the test calls it (the emitted module is plain JS). */
type CreateCampaign = (
  baseUrl: string,
  token: string,
  csv: string,
  key: string,
) => Promise<{ status: number; code: string | null; id: string | null; location: string | null }>;

/**
 * A CRM's client, as its developer would write it against the generated types: a campaign from
 * a spec object and a CSV file, multipart, with an Idempotency-Key. No cast anywhere.
 */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function createCampaign(baseUrl: string, token: string, csv: string, key: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });
  const { data, error, response } = await client.POST('/campaigns', {
    params: { header: { 'Idempotency-Key': key } },
    body: {
      spec: { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'], priority: 'high', maxCost: 100 },
      file: new Blob([csv], { type: 'text/csv' }),
    },
    bodySerializer(body) {
      if (typeof body === 'string' || body instanceof Blob) return body;
      const form = new FormData();
      form.append('spec', new Blob([JSON.stringify(body.spec)], { type: 'application/json' }));
      form.append('file', body.file, 'crm-export.csv');
      return form;
    },
  });
  if (error !== undefined) return { status: response.status, code: error.code, id: null, location: null };
  const id: string | null = data.id;
  return { status: response.status, code: null, id, location: response.headers.get('location') };
}
`;

/** What the old document allowed and the typed one must refuse: the spec as a string of JSON. */
const WRONG = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function specAsText(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  return client.POST('/campaigns', { body: { spec: '{"template":"order_update"}', file: new Blob(['phone']) } });
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    lib: ['ES2022', 'DOM'],
    types: [],
    outDir: 'out',
  },
  files: ['schema.d.ts', 'client.ts', 'wrong.ts'],
};

/** A file part is bytes: the generated type takes a Blob (openapi-typescript's own recipe for `format: binary`). */
function blobForBinary(schema: { format?: string }): ts.TypeNode | undefined {
  return schema.format === 'binary' ? ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob')) : undefined;
}

/** A client generated from the served OpenAPI document (openapi-typescript + openapi-fetch) creates a campaign. */
describe('HTTP API: a client generated from /api/v1/openapi.json', () => {
  let api: ApiTestService;
  let dir: string;

  beforeEach(async () => {
    api = await new ApiTestService('api-generated-client').start(CAMPAIGN_API_ENV);
    // Below node_modules (ignored by git): the client's imports resolve there, and nothing is left in the tree.
    const cache = join(packageRoot(), 'node_modules', '.cache');
    await mkdir(cache, { recursive: true });
    dir = await mkdtemp(join(cache, 'openapi-client-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
    await api.close();
  });

  it('typechecks with no cast and creates a campaign, multipart with a spec object and a CSV file', async () => {
    const document = (await (await fetch(`${api.url}/openapi.json`)).json()) as Parameters<typeof openapiTS>[0];
    const types = astToString(await openapiTS(document, { transform: blobForBinary }));
    await writeFile(join(dir, 'schema.d.ts'), types);
    await writeFile(join(dir, 'client.ts'), CLIENT);
    await writeFile(join(dir, 'wrong.ts'), WRONG);
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    expect(CLIENT).not.toMatch(/\bas\b|<[A-Za-z]+>\s*\w|!\./);

    const tsc = join(packageRoot(), 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir }).then(
      () => '',
      (failure: { stdout?: string; message?: string }) => failure.stdout ?? failure.message ?? 'tsc failed',
    );
    const errors = checked.split('\n').filter((line) => /error TS/.test(line));
    // The client compiles; the spec as a string does not (the document types it as an object).
    expect(errors.filter((line) => !line.startsWith('wrong.ts'))).toStrictEqual([]);
    expect(errors.some((line) => line.startsWith('wrong.ts'))).toBe(true);

    const client = (await import(pathToFileURL(join(dir, 'out', 'client.js')).href)) as { createCampaign: CreateCampaign };
    const csv = `phone,first_name,order_id\n${phoneNumber(1)},Ana,A-1\n${phoneNumber(2)},Bo,A-2\n`;
    const created = await client.createCampaign(api.url, api.tokens.send!, csv, 'crm-export-1');
    expect(created).toMatchObject({ status: 201, code: null });
    expect(created.location).toBe(`/api/v1/campaigns/${created.id}`);
    const ledger = new RedisLedger(api.redis, api.prefix);
    expect(await ledger.getCampaign(created.id!)).toMatchObject({ name: 'crm-export', priority: 'high' });
    // The generated types stated what the server takes: the same call again is the same request, replayed.
    expect(await client.createCampaign(api.url, api.tokens.send!, csv, 'crm-export-1')).toStrictEqual(created);
    expect(await readFile(join(dir, 'schema.d.ts'), 'utf8')).toContain('"Idempotency-Key"?: string');
  });
});
