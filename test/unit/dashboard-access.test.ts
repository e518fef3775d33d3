import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { basicAuthMatches } from '../../src/dashboard/basic-auth.js';
import { CSRF_TOKEN_MAX_AGE_MS, CsrfTokens, crossSite } from '../../src/dashboard/csrf.js';
import { checkDashboardExposure, isLoopbackHost } from '../../src/dashboard/exposure.js';
import { isAppError } from '../../src/errors/app-error.js';

const credentials = { user: 'ops', password: new Secret('pä ss:word') };
const header = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

describe('basicAuthMatches', () => {
  it('accepts exactly the user and password (UTF-8, a colon allowed in the password)', () => {
    expect(basicAuthMatches(header('ops:pä ss:word'), credentials)).toBe(true);
    expect(basicAuthMatches(`basic   ${Buffer.from('ops:pä ss:word').toString('base64')}`, credentials)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['empty', ''],
    ['another scheme', `Bearer ${Buffer.from('ops:pä ss:word').toString('base64')}`],
    ['wrong password', header('ops:pa ss:word')],
    ['password with a trailing space', header('ops:pä ss:word ')],
    ['wrong user', header('admin:pä ss:word')],
    ['user only', header('ops')],
    ['empty user and password', header(':')],
    ['not base64', 'Basic ***'],
  ])('refuses %s', (_what, value) => {
    expect(basicAuthMatches(value, credentials)).toBe(false);
  });
});

describe('CsrfTokens', () => {
  const key = randomBytes(32);
  let clock = Date.UTC(2026, 0, 1);
  const tokens = new CsrfTokens({ key: () => Promise.resolve(key), now: () => clock });

  it('accepts its own token for the same user, and not for another user or with another key', async () => {
    const token = await tokens.issue('ops');
    expect(token).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect(await tokens.verify(token, 'ops')).toBe(true);
    expect(await tokens.verify(token, 'admin')).toBe(false);
    const other = new CsrfTokens({ key: () => Promise.resolve(randomBytes(32)), now: () => clock });
    expect(await other.verify(token, 'ops')).toBe(false);
  });

  it('refuses a tampered, malformed, missing or expired token', async () => {
    const token = await tokens.issue('ops');
    const [issued, mac] = token.split('.') as [string, string];
    // The last character changed to another one (a fixed 'A' would leave a MAC that ends in 'A' intact: 1 run in 64 passed it).
    const tampered = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [`${Number(issued) + 1}.${mac}`, `${issued}.${tampered}`, `${issued}.`, mac, '', undefined, 42, [token]]) {
      expect(await tokens.verify(bad, 'ops'), String(bad)).toBe(false);
    }
    clock += CSRF_TOKEN_MAX_AGE_MS;
    expect(await tokens.verify(token, 'ops')).toBe(true);
    clock += 1;
    expect(await tokens.verify(token, 'ops')).toBe(false);
  });
});

describe('crossSite', () => {
  it.each([
    [{}, false],
    [{ 'sec-fetch-site': 'same-origin' }, false],
    [{ 'sec-fetch-site': 'none' }, false],
    [{ 'sec-fetch-site': 'same-site' }, true],
    [{ 'sec-fetch-site': 'cross-site' }, true],
    // Sec-Fetch-Site is the browser's word: it wins over an Origin a proxy's Host rewrite would contradict.
    [{ 'sec-fetch-site': 'same-origin', origin: 'https://dash.example', host: '127.0.0.1:8080' }, false],
    [{ origin: 'http://127.0.0.1:8080', host: '127.0.0.1:8080' }, false],
    [{ origin: 'https://dash.example', host: '127.0.0.1:8080', 'x-forwarded-host': 'dash.example' }, false],
    [{ origin: 'https://evil.example', host: '127.0.0.1:8080' }, true],
    [{ origin: 'null', host: '127.0.0.1:8080' }, true],
  ])('%j → %s', (headers, expected) => {
    expect(crossSite(headers)).toBe(expected);
  });
});

describe('serve --host without a password', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
    '%s is loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each(['0.0.0.0', '::', '10.0.0.1', '192.0.2.1', '::ffff:10.0.0.1', 'example.com', 'localhost.example.com', '128.0.0.1', ''])(
    '%s is not',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );

  it('refuses a non-loopback host without a password with DASHBOARD_PASSWORD_REQUIRED, and allows it with one', () => {
    let error: unknown;
    try {
      checkDashboardExposure('0.0.0.0', undefined);
    } catch (e) {
      error = e;
    }
    expect(isAppError(error, 'DASHBOARD_PASSWORD_REQUIRED')).toBe(true);
    expect((error as Error).message).toMatch(/set DASHBOARD_PASSWORD .* or listen on --host 127\.0\.0\.1/);
    expect(() => checkDashboardExposure('0.0.0.0', new Secret('x'))).not.toThrow();
    expect(() => checkDashboardExposure('127.0.0.1', undefined)).not.toThrow();
  });
});
