import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import type { ErrorCode } from '../errors/error-codes.js';
import { Secret } from '../config/secret.js';

/**
 * What an API token may do, each scope including the one before it: `read` reads campaigns,
 * reports and templates; `send` also creates and controls campaigns; `admin` also manages
 * opt-outs and tokens.
 */
export const API_SCOPES = ['read', 'send', 'admin'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export function isApiScope(value: string): value is ApiScope {
  return (API_SCOPES as readonly string[]).includes(value);
}

/** Whether a token of `scope` may do what needs `needed` (read < send < admin). */
export function allows(scope: ApiScope, needed: ApiScope): boolean {
  return API_SCOPES.indexOf(scope) >= API_SCOPES.indexOf(needed);
}

/** Recognisable by secret scanners, and told apart from other bearer tokens at a glance. */
export const TOKEN_PREFIX = 'cwt_';
/** 32 random bytes, base64url: 256 bits, so one unsalted SHA-256 is enough to store it. */
const TOKEN_FORMAT = /^cwt_[A-Za-z0-9_-]{43}$/;

/** A new token, held as a Secret: only the code that prints it once reveals it. */
export function newApiToken(): Secret {
  return new Secret(TOKEN_PREFIX + randomBytes(32).toString('base64url'));
}

export function looksLikeApiToken(value: string): boolean {
  return TOKEN_FORMAT.test(value);
}

/** What is stored in place of the token: its SHA-256, hex. */
export function apiTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A token's name: what `tokens revoke` and the campaigns' history call it. */
const NAME_FORMAT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isApiTokenName(value: string): boolean {
  return NAME_FORMAT.test(value);
}

/** A token as the store keeps it: never the token, only its hash. */
export interface StoredApiToken {
  name: string;
  scope: ApiScope;
  hash: string;
  createdAt: number;
  /** ms; null when the token does not expire. */
  expiresAt: number | null;
  /** ms of the last request it authenticated (to the minute), or null. */
  lastUsedAt: number | null;
}

/** What authenticate needs of the store. */
export interface ApiTokenLookup {
  byHash(hash: string): Promise<StoredApiToken | undefined>;
  /** Records a use; the store decides how often it writes. */
  used(name: string, at: number): Promise<void>;
}

/** Who made a request: the token's name and scope. */
export interface ApiPrincipal {
  name: string;
  scope: ApiScope;
}

type RefusalCode = Extract<ErrorCode, 'API_TOKEN_MISSING' | 'API_TOKEN_INVALID' | 'API_TOKEN_EXPIRED'>;

/** A request the API refuses for its credentials: 401 with a stable code. Its message never holds the token. */
export class ApiAuthRefusal extends AppError {
  readonly status = 401;

  constructor(code: RefusalCode, message: string) {
    super(code, message);
  }
}

/**
 * The principal of an `Authorization` header, or the refusal to answer with. The hash found
 * is compared again in constant time: the lookup by hash names the candidate, the comparison
 * decides.
 */
export async function authenticate(
  header: string | undefined,
  store: ApiTokenLookup,
  now: number = Date.now(),
): Promise<ApiPrincipal | ApiAuthRefusal> {
  if (header === undefined || header.trim() === '')
    return new ApiAuthRefusal('API_TOKEN_MISSING', 'The request has no Authorization header: send "Authorization: Bearer cwt_…"');
  const match = /^Bearer +(\S+)\s*$/i.exec(header.trim());
  const token = match?.[1];
  if (token === undefined || !looksLikeApiToken(token))
    return new ApiAuthRefusal(
      'API_TOKEN_MISSING',
      'The Authorization header is not "Bearer cwt_…" with a token of `campaign tokens create`',
    );
  const hash = apiTokenHash(token);
  const stored = await store.byHash(hash);
  if (stored === undefined || !sameHash(stored.hash, hash))
    return new ApiAuthRefusal('API_TOKEN_INVALID', 'The bearer token is unknown or revoked');
  if (stored.expiresAt !== null && stored.expiresAt <= now)
    return new ApiAuthRefusal(
      'API_TOKEN_EXPIRED',
      `The token "${stored.name}" expired at ${new Date(stored.expiresAt).toISOString()}; create another with \`campaign tokens create\``,
    );
  await store.used(stored.name, now);
  return { name: stored.name, scope: stored.scope };
}

function sameHash(stored: string, computed: string): boolean {
  const a = Buffer.from(stored, 'utf8');
  const b = Buffer.from(computed, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
