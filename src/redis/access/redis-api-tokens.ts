import type { RedisClient } from '../key-scope.js';
import { AppError } from '../../errors/app-error.js';
import type { Secret } from '../../config/secret.js';
import { apiTokenHash, isApiScope, newApiToken, type ApiScope, type ApiTokenLookup, type StoredApiToken } from '../../http/api-tokens.js';

/** A token's last use is written at most this often (per token, per process): a request must not cost a write. */
export const LAST_USE_RESOLUTION_MS = 60_000;

/**
 * The API tokens of this prefix, in one hash (one key, so one cluster slot for every write):
 * `name:<name>` → JSON of the token's scope, SHA-256 and times; `hash:<sha256>` → name (the
 * lookup of a request); `used:<name>` → ms of its last use. The token itself is never stored.
 */
export function apiTokensKey(prefix: string): string {
  return `${prefix}:api-tokens`;
}

interface TokenRecord {
  scope: ApiScope;
  hash: string;
  createdAt: number;
  expiresAt: number | null;
}

/** A token just created: the only time its value exists outside the client that holds it. */
export interface CreatedApiToken {
  name: string;
  scope: ApiScope;
  token: Secret;
  createdAt: number;
  expiresAt: number | null;
}

export class RedisApiTokens implements ApiTokenLookup {
  readonly #key: string;
  /** name → when this process last wrote its use. */
  readonly #written = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.#key = apiTokensKey(prefix);
  }

  /** A new token named `name`; API_TOKEN_NAME_TAKEN when a token has that name already. */
  async create(name: string, scope: ApiScope, expiresInMs?: number): Promise<CreatedApiToken> {
    const token = newApiToken();
    const hash = apiTokenHash(token.reveal());
    const createdAt = this.clock();
    const expiresAt = expiresInMs === undefined ? null : createdAt + expiresInMs;
    const record: TokenRecord = { scope, hash, createdAt, expiresAt };
    // The lookup goes first: a name only becomes usable once its hash can be found, and a
    // lookup left by a refused name points at a record whose hash differs (authenticate refuses).
    await this.redis.hset(this.#key, `hash:${hash}`, name);
    if ((await this.redis.hsetnx(this.#key, `name:${name}`, JSON.stringify(record))) === 0) {
      await this.redis.hdel(this.#key, `hash:${hash}`);
      throw new AppError('API_TOKEN_NAME_TAKEN', `A token named "${name}" exists; revoke it first or choose another name`);
    }
    await this.redis.hdel(this.#key, `used:${name}`);
    return { name, scope, token, createdAt, expiresAt };
  }

  /** Every token, oldest first, without its hash. */
  async list(): Promise<Omit<StoredApiToken, 'hash'>[]> {
    const all = await this.redis.hgetall(this.#key);
    const tokens: Omit<StoredApiToken, 'hash'>[] = [];
    for (const [field, value] of Object.entries(all)) {
      if (!field.startsWith('name:')) continue;
      const name = field.slice('name:'.length);
      const record = parse(value);
      if (record === undefined) continue;
      const used = Number(all[`used:${name}`]);
      tokens.push({
        name,
        scope: record.scope,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
        lastUsedAt: Number.isFinite(used) && used > 0 ? used : null,
      });
    }
    return tokens.sort((a, b) => a.createdAt - b.createdAt || a.name.localeCompare(b.name));
  }

  /** Removes the token named `name`: its next request is refused. API_TOKEN_NOT_FOUND when none has that name. */
  async revoke(name: string): Promise<void> {
    const stored = await this.redis.hget(this.#key, `name:${name}`);
    if (stored === null) throw new AppError('API_TOKEN_NOT_FOUND', `No token is named "${name}" (see \`campaign tokens list\`)`);
    // A damaged record goes too; its lookup, if left, names a record that no longer exists.
    const hash = parse(stored)?.hash;
    await this.redis.hdel(this.#key, `name:${name}`, `used:${name}`, ...(hash === undefined ? [] : [`hash:${hash}`]));
    this.#written.delete(name);
  }

  async byHash(hash: string): Promise<StoredApiToken | undefined> {
    const name = await this.redis.hget(this.#key, `hash:${hash}`);
    if (name === null) return undefined;
    const [value, used] = await this.redis.hmget(this.#key, `name:${name}`, `used:${name}`);
    const record = parse(value);
    if (record === undefined) return undefined;
    const lastUsedAt = Number(used);
    return { name, ...record, lastUsedAt: Number.isFinite(lastUsedAt) && lastUsedAt > 0 ? lastUsedAt : null };
  }

  async used(name: string, at: number): Promise<void> {
    const last = this.#written.get(name);
    if (last !== undefined && at - last < LAST_USE_RESOLUTION_MS) return;
    this.#written.set(name, at);
    // Only while the token exists: a use racing its revocation must not leave a field behind.
    if ((await this.redis.hexists(this.#key, `name:${name}`)) === 1) await this.redis.hset(this.#key, `used:${name}`, at);
  }
}

function parse(value: string | null | undefined): TokenRecord | undefined {
  if (value === null || value === undefined) return undefined;
  let record: Partial<TokenRecord>;
  try {
    record = JSON.parse(value) as Partial<TokenRecord>;
  } catch {
    // A record written by hand or damaged: that token is refused, not every request.
    return undefined;
  }
  if (
    typeof record !== 'object' ||
    record === null ||
    typeof record.hash !== 'string' ||
    typeof record.scope !== 'string' ||
    !isApiScope(record.scope)
  )
    return undefined;
  return {
    scope: record.scope,
    hash: record.hash,
    createdAt: Number(record.createdAt),
    expiresAt: typeof record.expiresAt === 'number' ? record.expiresAt : null,
  };
}
