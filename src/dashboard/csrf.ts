import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RedisClient } from '../redis/key-scope.js';
import { csrfKeyName } from '../redis/service-keys.js';

/** A form's token is accepted this long after the page that holds it was served. */
export const CSRF_TOKEN_MAX_AGE_MS = 12 * 3_600_000;

/** The hidden form field every control POST carries its token in. */
export const CSRF_FIELD = 'csrf';
/** The header the pages' scripts send the same token in, to the HTTP API. */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * CSRF tokens for the dashboard's control forms. The browser sends basic-auth credentials
 * with any request to this host, a forged cross-site form included, so a POST is obeyed only
 * with a token that a page of ours put in the form: `<issued ms>.<HMAC-SHA256(key, issued +
 * user)>`. Another site cannot read our pages (same-origin policy), so it cannot know one.
 * There is no cookie, so no session to keep: the key is shared by every `serve` behind a
 * load balancer (see redisCsrfKey), and a token expires after CSRF_TOKEN_MAX_AGE_MS.
 */
export class CsrfTokens {
  readonly #key: () => Promise<Buffer>;
  readonly #now: () => number;

  constructor(options: { key: () => Promise<Buffer>; now?: () => number }) {
    this.#key = options.key;
    this.#now = options.now ?? Date.now;
  }

  async issue(user: string): Promise<string> {
    const issued = String(this.#now());
    return `${issued}.${mac(await this.#key(), issued, user)}`;
  }

  async verify(token: unknown, user: string): Promise<boolean> {
    if (typeof token !== 'string') return false;
    const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (match === null) return false;
    const issued = match[1] ?? '';
    const age = this.#now() - Number(issued);
    if (!(age >= -60_000 && age <= CSRF_TOKEN_MAX_AGE_MS)) return false;
    const expected = Buffer.from(mac(await this.#key(), issued, user));
    const given = Buffer.from(match[2] ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

function mac(key: Buffer, issued: string, user: string): string {
  return createHmac('sha256', key).update(`${issued}\n${user}`).digest('base64url');
}

/**
 * The HMAC key, one for every service on this Redis and prefix (csrfKeyName,
 * 32 random bytes, written once with SET NX): a form served by one instance is accepted by
 * another. Read once, then kept in memory.
 */
export function redisCsrfKey(redis: RedisClient, prefix: string): () => Promise<Buffer> {
  const name = csrfKeyName(prefix);
  let key: Promise<Buffer> | undefined;
  const read = async (): Promise<Buffer> => {
    await redis.set(name, randomBytes(32).toString('hex'), 'NX');
    const stored = await redis.get(name);
    if (stored === null || !/^[0-9a-f]{64}$/.test(stored)) throw new Error(`${name} is missing or malformed`);
    return Buffer.from(stored, 'hex');
  };
  return () =>
    (key ??= read().catch((error: unknown) => {
      key = undefined;
      throw error;
    }));
}

/**
 * A second line of defence besides the token: a request the browser says came from another
 * site. `Sec-Fetch-Site` is set by the browser itself (a proxy that rewrites Host does not
 * change it); without it, an `Origin` must name the host the request was sent to.
 */
export function crossSite(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = headers.origin;
  if (origin === undefined) return false;
  try {
    const host = new URL(origin).host;
    return host !== headers.host && host !== headers['x-forwarded-host'];
  } catch {
    return true;
  }
}
