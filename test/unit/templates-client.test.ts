import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { pino, type Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudApiBadResponseError, CloudApiError, CloudApiTransportError } from '../../src/cloud-api/cloud-api-errors.js';
import { CloudApiTemplateSource, type TemplatesClientOptions } from '../../src/cloud-api/templates-client.js';
import { Secret } from '../../src/config/secret.js';

const ORIGIN = 'https://graph.test';
const WABA = '100000000000001';
const PATH = `/v23.0/${WABA}/message_templates`;
const TOKEN = 'EAAGtemplates-token-that-must-never-leak-42';

function example(name: string): Record<string, unknown> {
  const url = new URL(`../fixtures/reference/examples/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
}

const listExample = example('templates-list.response.json') as { data: Record<string, unknown>[] };

function template(name: string, language = 'en_US', status = 'APPROVED'): Record<string, unknown> {
  return { name, language, status, category: 'UTILITY', components: [{ type: 'BODY', text: `Hi {{1}} from ${name}` }] };
}

interface Seen {
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
}

let agent: MockAgent;
let seen: Seen[];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  seen = [];
});

afterEach(async () => {
  await agent.close();
});

function source(options: Partial<TemplatesClientOptions> = {}): CloudApiTemplateSource {
  return new CloudApiTemplateSource({
    baseUrl: ORIGIN,
    apiVersion: 'v23.0',
    businessAccountId: WABA,
    accessToken: new Secret(TOKEN),
    timeoutMs: 5_000,
    dispatcher: agent,
    ...options,
  });
}

/** Answers the next GET of the list with `body`, recording what was asked. */
function page(body: unknown, status = 200): void {
  agent
    .get(ORIGIN)
    .intercept({ path: (p) => p.startsWith(`${PATH}?`), method: 'GET' })
    .reply((options) => {
      const url = new URL(options.path, ORIGIN);
      const headers = options.headers as Record<string, string>;
      seen.push({ path: url.pathname, query: url.searchParams, authorization: headers.authorization });
      return { statusCode: status, data: body as object };
    });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure, got success');
}

function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe('CloudApiTemplateSource.fetchAll: paging', () => {
  it('follows 3 pages by their after cursor and stops where paging.next is absent', async () => {
    page({ data: [template('a'), template('b')], paging: { cursors: { before: 'b0', after: 'c1' }, next: `${ORIGIN}${PATH}?after=c1` } });
    page({ data: [template('c'), template('d')], paging: { cursors: { before: 'c1b', after: 'c2' }, next: `${ORIGIN}${PATH}?after=c2` } });
    page({ data: [template('e')], paging: { cursors: { before: 'c2b', after: 'c3' } } });

    const templates = await source({ pageSize: 2 }).fetchAll();

    expect(templates.map((t) => t.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(seen.map((s) => s.query.get('after'))).toEqual([null, 'c1', 'c2']);
    expect(seen.every((s) => s.path === PATH && s.query.get('limit') === '2')).toBe(true);
    agent.assertNoPendingInterceptors();
  });

  it('asks for 100 a page by default, with the fields the schema needs', async () => {
    page({ data: [template('a')] });
    await source().fetchAll();
    expect(seen[0]?.query.get('limit')).toBe('100');
    expect(seen[0]?.query.get('fields')?.split(',')).toEqual(
      expect.arrayContaining(['name', 'language', 'status', 'category', 'parameter_format', 'components']),
    );
  });

  it('sends the bearer token in the Authorization header and never in the URL', async () => {
    page({ data: [template('a')], paging: { next: `https://elsewhere.example${PATH}?after=c1&access_token=${TOKEN}` } });
    page({ data: [template('b')] });

    await source().fetchAll();

    expect(seen).toHaveLength(2);
    for (const request of seen) {
      expect(request.authorization).toBe(`Bearer ${TOKEN}`);
      expect(request.query.toString()).not.toContain(TOKEN);
    }
    // The cursor came from `next` (no cursors object), the request went to our own origin.
    expect(seen[1]?.query.get('after')).toBe('c1');
  });

  it('reads the whole documented example page (extra fields, NAMED, IMAGE header)', async () => {
    page({ ...listExample, paging: { cursors: { before: 'x', after: 'y' } } });
    const templates = await source().fetchAll();
    expect(templates.map((t) => `${t.name}/${t.language}/${t.parameter_format}`)).toEqual([
      'spring_sale_v2/en_GB/POSITIONAL',
      'order_ready_named/pt_BR/NAMED',
    ]);
  });

  it('stops with CLOUD_API_BAD_RESPONSE when a server repeats a cursor or never ends', async () => {
    const endless = (after: string) => ({ data: [], paging: { cursors: { after }, next: `${ORIGIN}${PATH}?after=${after}` } });
    page(endless('same'));
    page(endless('same'));
    const repeated = await failure(source().fetchAll());
    expect(repeated).toBeInstanceOf(CloudApiBadResponseError);
    expect((repeated as Error).message).toContain('repeats');

    for (const cursor of ['1', '2', '3']) page(endless(cursor));
    const endlessError = await failure(source({ maxPages: 3 }).fetchAll());
    expect(endlessError).toMatchObject({ code: 'CLOUD_API_BAD_RESPONSE' });
    expect((endlessError as Error).message).toContain('after 3 pages');
    agent.assertNoPendingInterceptors();
  });
});

describe('CloudApiTemplateSource.fetchAll: errors', () => {
  it('maps a Graph error to CloudApiError with metaCode, and never shows the token', async () => {
    page(example('error.token-expired.json'), 401);

    const error = await failure(source().fetchAll());

    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toMatchObject({ code: 'CLOUD_API_ERROR', httpStatus: 401, metaCode: 190, subcode: 463 });
    expect((error as Error).message).toContain('templates list');
    expect((error as Error).message).toContain('code 190');
    expect(inspect(error, { depth: 5 })).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });

  it('maps an error status without a Graph body to CloudApiError without metaCode', async () => {
    page('<html>bad gateway</html>', 502);
    const error = await failure(source().fetchAll());
    expect(error).toMatchObject({ code: 'CLOUD_API_ERROR', httpStatus: 502, metaCode: undefined });
  });

  it('rejects a malformed page with CLOUD_API_BAD_RESPONSE naming the page and the field', async () => {
    page({ data: [template('a')], paging: { cursors: { after: 'c1' }, next: `${ORIGIN}${PATH}?after=c1` } });
    page({ data: [template('b'), { language: 'en_US', status: 'APPROVED', components: [] }] });

    const error = await failure(source().fetchAll());

    expect(error).toBeInstanceOf(CloudApiBadResponseError);
    expect((error as Error).message).toContain('page 2');
    expect((error as Error).message).toContain('data.1.name');
  });

  it('rejects a body that is not a list at all', async () => {
    page({ templates: [] });
    expect(await failure(source().fetchAll())).toMatchObject({ code: 'CLOUD_API_BAD_RESPONSE' });
    page('not json');
    expect(await failure(source().fetchAll())).toMatchObject({ code: 'CLOUD_API_BAD_RESPONSE' });
  });

  it('skips, with a warning, a template whose components this version does not model', async () => {
    const carousel = { name: 'promo_carousel', language: 'en_US', status: 'APPROVED', components: [{ type: 'CAROUSEL', cards: [] }] };
    page({ data: [template('a'), carousel, template('b')] });
    const { logger, lines } = capturingLogger();

    const templates = await source({ logger }).fetchAll();

    expect(templates.map((t) => t.name)).toEqual(['a', 'b']);
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'template skipped: shape not supported', template: 'promo_carousel', language: 'en_US' }),
    ]);
  });

  it('maps a failed connection to CloudApiTransportError', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: (p) => p.startsWith(PATH), method: 'GET' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));

    const error = await failure(source().fetchAll());

    expect(error).toBeInstanceOf(CloudApiTransportError);
    expect(error).toMatchObject({ code: 'CLOUD_API_TRANSPORT' });
    expect((error as Error).message).toContain('listing templates');
  });
});

describe('CloudApiTemplateSource', () => {
  it('describes itself without the token', () => {
    const s = source();
    expect(s.describe()).toBe(`Cloud API ${ORIGIN}/v23.0 WABA ${WABA}`);
    expect(inspect(s)).not.toContain(TOKEN);
  });

  it('refuses a page size or page bound that is not a positive integer', () => {
    expect(() => source({ pageSize: 0 })).toThrow(RangeError);
    expect(() => source({ maxPages: 1.5 })).toThrow(RangeError);
  });
});
