import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import {
  API_SCOPES,
  ApiAuthRefusal,
  allows,
  apiTokenHash,
  authenticate,
  isApiTokenName,
  looksLikeApiToken,
  newApiToken,
  type ApiScope,
  type ApiTokenLookup,
  type StoredApiToken,
} from '../../src/http/api-tokens.js';

describe('allows: read < send < admin', () => {
  const table: [ApiScope, ApiScope, boolean][] = [
    ['read', 'read', true],
    ['read', 'send', false],
    ['read', 'admin', false],
    ['send', 'read', true],
    ['send', 'send', true],
    ['send', 'admin', false],
    ['admin', 'read', true],
    ['admin', 'send', true],
    ['admin', 'admin', true],
  ];
  it.each(table)('%s needing %s → %s', (scope, needed, expected) => {
    expect(allows(scope, needed)).toBe(expected);
  });
  it('has exactly the three scopes, in that order', () => {
    expect(API_SCOPES).toStrictEqual(['read', 'send', 'admin']);
  });
});

describe('the token format', () => {
  it('is cwt_ and 43 base64url characters (256 random bits), different each time', () => {
    const tokens = Array.from({ length: 50 }, () => newApiToken().reveal());
    for (const token of tokens) {
      expect(token).toMatch(/^cwt_[A-Za-z0-9_-]{43}$/);
      expect(looksLikeApiToken(token)).toBe(true);
    }
    expect(new Set(tokens).size).toBe(50);
  });
  it('refuses what is not one', () => {
    const token = newApiToken().reveal();
    for (const bad of ['', 'cwt_', token.slice(0, -1), `${token}x`, token.replace('cwt_', 'cwx_'), `${token.slice(0, -1)}=`])
      expect(looksLikeApiToken(bad)).toBe(false);
  });
  it('is stored as its SHA-256 in hex', () => {
    expect(apiTokenHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
  it('is never printed by accident: a new token is a Secret', () => {
    const token = newApiToken();
    const value = token.reveal();
    for (const shown of [String(token), JSON.stringify({ token }), inspect({ token })]) expect(shown).not.toContain(value);
  });
  it('names: a letter or digit, then letters, digits, . _ -, at most 64', () => {
    for (const good of ['crm', 'CRM-nightly_2.0', 'a'.repeat(64)]) expect(isApiTokenName(good)).toBe(true);
    for (const bad of ['', '-crm', 'a b', 'a:b', 'a'.repeat(65), 'é']) expect(isApiTokenName(bad)).toBe(false);
  });
});

/** One token in memory: the header rules are authenticate's own, whatever the store. */
function oneToken(token: string, extra: Partial<StoredApiToken> = {}): ApiTokenLookup & { uses: number[] } {
  const stored: StoredApiToken = {
    name: 'crm',
    scope: 'send',
    hash: apiTokenHash(token),
    createdAt: 0,
    expiresAt: null,
    lastUsedAt: null,
    ...extra,
  };
  const uses: number[] = [];
  return {
    uses,
    byHash: (hash) => Promise.resolve(hash === apiTokenHash(token) ? stored : undefined),
    used: (_name, at) => {
      uses.push(at);
      return Promise.resolve();
    },
  };
}

describe('authenticate', () => {
  const token = newApiToken().reveal();

  it('accepts "Bearer <token>" (any case of Bearer) and records the use', async () => {
    const store = oneToken(token);
    expect(await authenticate(`Bearer ${token}`, store, 5)).toStrictEqual({ name: 'crm', scope: 'send' });
    expect(await authenticate(`bearer ${token}`, store, 6)).toStrictEqual({ name: 'crm', scope: 'send' });
    expect(store.uses).toStrictEqual([5, 6]);
  });

  it.each([
    ['no header', undefined],
    ['an empty one', ''],
    ['Basic auth', 'Basic YWRtaW46cGFzcw=='],
    ['no scheme', 'TOKEN'],
    ['a token of another form', 'Bearer abc.def.ghi'],
    ['two tokens', 'Bearer cwt_a cwt_b'],
  ])('refuses %s with 401 API_TOKEN_MISSING', async (_what, header) => {
    const refusal = await authenticate(header === 'TOKEN' ? token : header, oneToken(token));
    expect(refusal).toBeInstanceOf(ApiAuthRefusal);
    expect(refusal).toMatchObject({ status: 401, code: 'API_TOKEN_MISSING' });
  });

  it('refuses an unknown token with API_TOKEN_INVALID, and a stored hash that differs', async () => {
    const other = newApiToken().reveal();
    expect(await authenticate(`Bearer ${other}`, oneToken(token))).toMatchObject({ status: 401, code: 'API_TOKEN_INVALID' });
    const wrongHash = oneToken(token, { hash: apiTokenHash(other) });
    expect(await authenticate(`Bearer ${token}`, wrongHash)).toMatchObject({ status: 401, code: 'API_TOKEN_INVALID' });
  });

  it('refuses at and after the expiry with API_TOKEN_EXPIRED, and records no use', async () => {
    const store = oneToken(token, { expiresAt: 1000 });
    expect(await authenticate(`Bearer ${token}`, store, 999)).toStrictEqual({ name: 'crm', scope: 'send' });
    expect(await authenticate(`Bearer ${token}`, store, 1000)).toMatchObject({ status: 401, code: 'API_TOKEN_EXPIRED' });
    expect(store.uses).toStrictEqual([999]);
  });

  it('never puts the token in a refusal', async () => {
    const other = newApiToken().reveal();
    const refusals = [
      await authenticate(`Bearer ${other}`, oneToken(token)),
      await authenticate(`Bearer ${token}`, oneToken(token, { expiresAt: 0 })),
      await authenticate(`Bearer ${token}x`, oneToken(token)),
    ];
    for (const refusal of refusals) {
      expect(refusal).toBeInstanceOf(ApiAuthRefusal);
      const shown = `${inspect(refusal)} ${JSON.stringify(refusal)} ${(refusal as ApiAuthRefusal).message}`;
      expect(shown).not.toContain(token.slice(4));
      expect(shown).not.toContain(other.slice(4));
    }
  });
});

describe('the logger', () => {
  it('redacts a bearer token wherever a request or its headers are logged', () => {
    const token = newApiToken().reveal();
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const authorization = `Bearer ${token}`;
    logger.info({ headers: { authorization } }, 'headers');
    logger.info({ req: { headers: { authorization } } }, 'request');
    logger.info({ authorization, token }, 'fields');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).not.toContain(token.slice(4));
  });
});
