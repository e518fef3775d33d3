import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/app-error.js';
import { AccessTokens } from '../../src/sandbox/access-token.js';
import { missingParameter, toGraphError } from '../../src/sandbox/graph-error.js';
import { metaWamid } from '../../src/cloud-api/wamid-shape.js';
import { newWamid } from '../../src/sandbox/ids.js';
import { loadTemplatesFile } from '../../src/templates/templates-file.js';
import { InvalidCursorError, TemplatesStore } from '../../src/sandbox/templates-store.js';
import { FIXTURE_TEMPLATES } from './sandbox-fixtures.js';

/** Error bodies, tokens, ids and the templates catalogue and file loader (faults: sandbox-faults.test.ts). */
describe('Graph error bodies', () => {
  it.each([
    [131056, 400, '(#131056) (Business Account, Consumer Account) pair rate limit hit'],
    [132001, 404, '(#132001) Template name does not exist in the translation'],
    [130429, 400, '(#130429) Rate limit hit'],
    [131000, 500, '(#131000) Something went wrong'],
    [133004, 503, '(#133004) Server Temporarily Unavailable'],
    [131057, 500, '(#131057) Account in maintenance mode'],
    [132018, 400, '(#132018) There was an issue with the parameters in your template.'],
  ])('code %i answers HTTP %i with message %j', (code, status, message) => {
    const reply = toGraphError({ code, details: 'why' });
    expect(reply.status).toBe(status);
    expect(reply.body.error).toMatchObject({
      message,
      type: 'OAuthException',
      code,
      error_data: { messaging_product: 'whatsapp', details: 'why' },
    });
  });

  it('words a missing required field as Graph does: 100, "(#100) The parameter … is required.", no error_data', () => {
    expect(toGraphError(missingParameter('template.name'))).toEqual({
      status: 400,
      body: {
        error: {
          message: '(#100) The parameter template.name is required.',
          type: 'OAuthException',
          code: 100,
          fbtrace_id: expect.any(String) as unknown,
        },
      },
    });
  });

  it('gives each answer a fresh fbtrace_id', () => {
    const a = toGraphError({ code: 100, details: 'x' }).body.error.fbtrace_id;
    const b = toGraphError({ code: 100, details: 'x' }).body.error.fbtrace_id;
    expect(a).not.toBe(b);
  });
});

describe('AccessTokens', () => {
  it('accepts the bearer token and answers 190/467 for a wrong one', () => {
    const tokens = new AccessTokens('secret');
    expect(tokens.check('Bearer secret', undefined)).toBeUndefined();
    expect(tokens.check(undefined, 'secret')).toBeUndefined();
    expect(tokens.check(undefined, 'nope')?.body.error).toMatchObject({ code: 190, error_subcode: 467 });
    for (const header of ['Bearer nope', 'secret', 'Basic secret']) {
      const reply = tokens.check(header, undefined);
      expect(reply?.status).toBe(401);
      expect(reply?.body.error).toMatchObject({ code: 190, error_subcode: 467, message: 'Invalid OAuth access token.' });
      expect(reply?.body.error.error_data).toBeUndefined();
    }
  });

  it("answers Graph's 104 (no subcode, no error_data) when the request carries no token at all", () => {
    const reply = new AccessTokens('secret').check(undefined, undefined);
    expect(reply?.status).toBe(401);
    expect(reply?.body.error).toMatchObject({
      code: 104,
      type: 'OAuthException',
      message: 'An access token is required to request this resource.',
    });
    expect(reply?.body.error.error_subcode).toBeUndefined();
    expect(reply?.body.error.error_data).toBeUndefined();
  });

  it('answers 190/463 (expired) for a token that was replaced', () => {
    const tokens = new AccessTokens('old');
    tokens.replace('new');
    expect(tokens.check('Bearer new', undefined)).toBeUndefined();
    expect(tokens.check('Bearer old', undefined)?.body.error).toMatchObject({ code: 190, error_subcode: 463 });
  });
});

describe('wamids', () => {
  /** The record inside Meta's base64 (src/cloud-api/wamid-shape.ts): its fixed bytes in hex, digits, kind, hex ID. */
  function decode(id: string): { frame: string; digits: string; kind: number; hex: string } {
    const bytes = Buffer.from(id.slice('wamid.'.length), 'base64');
    const n = bytes[2] ?? 0;
    const m = bytes[n + 8] ?? 0;
    const frame = Buffer.concat([bytes.subarray(0, 3), bytes.subarray(n + 3, n + 9), bytes.subarray(n + 9 + m)]).toString('hex');
    return {
      frame,
      digits: bytes.toString('latin1', 3, 3 + n),
      kind: bytes[n + 6] ?? 0,
      hex: bytes.toString('latin1', n + 9, n + 9 + m),
    };
  }

  it("are unique, in Meta's shape and length, holding the recipient's digits", () => {
    const ids = Array.from({ length: 10_000 }, () => newWamid('4915112345678'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [ids[0] ?? '', ids[9_999] ?? '']) {
      expect(id).toMatch(/^wamid\.[A-Za-z0-9+/]+={0,2}$/);
      expect(Buffer.from(id.slice(6), 'base64').toString('base64')).toBe(id.slice(6));
      const { frame, digits, kind, hex } = decode(id);
      expect({ frame, digits, kind }).toEqual({ frame: '1c180d150200111812' + '00', digits: '4915112345678', kind: 0x11 });
      expect(hex).toMatch(/^[0-9A-F]{18}$/);
    }
    // As long as Meta's for the same number of digits: 58 for the 11 of its examples, 62 for 13.
    expect(newWamid('16505551234')).toHaveLength('wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3N0EzRUZGNUQ3RTBDMkI0NjkA'.length);
    expect(ids[0]).toHaveLength(62);
  });

  it("names a user's message as Meta does: its own kind and a 20-character hex ID", () => {
    const id = newWamid('447700900123', 'received');
    const { frame, digits, kind, hex } = decode(id);
    expect({ frame, digits, kind }).toEqual({ frame: '1c180c15020012181400', digits: '447700900123', kind: 0x12 });
    expect(hex).toMatch(/^[0-9A-F]{20}$/);
    expect(id).not.toBe(newWamid('447700900123', 'received'));
  });

  it("builds Meta's own example from its digits and hex ID", () => {
    expect(metaWamid('16503879439', '77A3EFF5D7E0C2B469')).toBe('wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3N0EzRUZGNUQ3RTBDMkI0NjkA');
    expect(metaWamid('16503879439', '3A06550FCD07EB2BEE45', 'received')).toBe(
      'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTA2NTUwRkNEMDdFQjJCRUU0NQA=',
    );
  });
});

describe('TemplatesStore', () => {
  const store = new TemplatesStore(FIXTURE_TEMPLATES);

  it('finds by exact name and language', () => {
    expect(store.find('order_update', 'en_US')?.requirements.body.variables).toEqual(['1', '2']);
    expect(store.find('order_update', 'en_GB')).toBeUndefined();
  });

  it('pages with cursors and reports a next page only while more remain', () => {
    const names: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = store.list({ limit: 4, ...(after === undefined ? {} : { after }) });
      names.push(...page.data.map((t) => t.name));
      after = page.nextAfter;
      pages++;
    } while (after !== undefined);
    expect(pages).toBe(3);
    expect(names).toEqual(FIXTURE_TEMPLATES.map((t) => t.name));
  });

  it('filters by status and name', () => {
    expect(store.list({ limit: 25, status: 'paused' }).data.map((t) => t.name)).toEqual(['winter_clearance']);
    expect(store.list({ limit: 25, name: 'HEADER' }).data.map((t) => t.name)).toEqual([
      'text_header_url',
      'document_header',
      'location_header',
    ]);
    expect(store.list({ limit: 25, name: 'nothing' })).toEqual({ data: [] });
  });

  it('refuses a cursor it did not issue and a duplicated template', () => {
    expect(() => store.list({ limit: 2, after: 'garbage' })).toThrow(InvalidCursorError);
    const first = FIXTURE_TEMPLATES[0];
    if (first === undefined) throw new Error('fixture missing');
    expect(() => new TemplatesStore([first, first])).toThrow(/listed twice/);
    const twin = { ...first, language: 'de', id: 'T-1' };
    expect(() => new TemplatesStore([{ ...first, id: 'T-1' }, twin])).toThrow(/has the id of .*Meta gives each template its own/);
  });
});

describe('loadTemplatesFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-templates-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function fileWith(name: string, content: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }

  it("loads the samples in Meta's list shape, keeping fields the schema does not model", async () => {
    const templates = await loadTemplatesFile('samples/templates.json');
    const names = templates.map((t) => `${t.name}/${t.language}/${t.status}`);
    expect(names).toEqual(
      expect.arrayContaining(['order_update/en_US/APPROVED', 'appointment_reminder_named/en_US/APPROVED', 'spring_promo/en_US/APPROVED']),
    );
    expect(templates.some((t) => t.status === 'PAUSED')).toBe(true);
    expect(templates.some((t) => t.status === 'DISABLED')).toBe(true);
    const body = templates[0]?.components[0] as { example?: unknown } | undefined;
    expect(body?.example).toBeDefined();
    expect(new TemplatesStore(templates).size).toBe(templates.length);
  });

  it('also takes a bare array', async () => {
    const path = await fileWith('bare.json', JSON.stringify(FIXTURE_TEMPLATES.slice(0, 2)));
    expect(await loadTemplatesFile(path)).toHaveLength(2);
  });

  it.each([
    ['bad.json', '{"data": [', /not valid JSON/],
    ['shape.json', '{"data": [{"name": "x"}]}', /data\.0\.language/],
    ['object.json', '{"templates": []}', /data/],
  ])('refuses %s with TEMPLATES_FILE_INVALID naming the file', async (name, content, problem) => {
    const path = await fileWith(name, content);
    const error: unknown = await loadTemplatesFile(path).catch((e: unknown) => e);
    expect(isAppError(error, 'TEMPLATES_FILE_INVALID')).toBe(true);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(problem);
  });

  it('refuses a missing file with TEMPLATES_FILE_INVALID', async () => {
    const error: unknown = await loadTemplatesFile(join(dir, 'missing.json')).catch((e: unknown) => e);
    expect(isAppError(error, 'TEMPLATES_FILE_INVALID')).toBe(true);
  });
});
