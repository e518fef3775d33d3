import type { AppContext } from './app-context.js';
import { AppError } from '../errors/app-error.js';
import { API_SCOPES, isApiScope, isApiTokenName, type StoredApiToken } from '../http/api-tokens.js';
import { RedisApiTokens, type CreatedApiToken } from '../redis/access/redis-api-tokens.js';
import { parseDuration } from '../campaigns/spec/time-options.js';

/**
 * `campaign tokens create|list|revoke`: the bearer tokens of the HTTP API, under this
 * QUEUE_PREFIX. A token is shown once, when created; Redis keeps only its SHA-256.
 */
type TokensContext = Pick<AppContext, 'config' | 'redis'>;

export interface CreateTokenOptions {
  name: string;
  scope: string;
  expires?: string | undefined;
}

/** A new token of `options.scope`: its value is in what this returns, and nowhere else. */
export async function createToken(context: TokensContext, options: CreateTokenOptions): Promise<CreatedApiToken> {
  if (!isApiTokenName(options.name))
    throw new AppError(
      'OPTION_INVALID',
      `--name "${options.name}": a letter or digit, then letters, digits, ".", "_" or "-" (at most 64 characters)`,
    );
  if (!isApiScope(options.scope)) throw new AppError('OPTION_INVALID', `--scope "${options.scope}": one of ${API_SCOPES.join(', ')}`);
  const expiresIn = options.expires === undefined ? undefined : parseDuration('--expires', options.expires);
  return new RedisApiTokens(context.redis, context.config.queuePrefix).create(options.name, options.scope, expiresIn);
}

/** Every token under this QUEUE_PREFIX, without its hash. */
export async function listTokens(context: TokensContext): Promise<Omit<StoredApiToken, 'hash'>[]> {
  return new RedisApiTokens(context.redis, context.config.queuePrefix).list();
}

/** Requests that carry it are refused from now on (API_TOKEN_INVALID). */
export async function revokeToken(context: TokensContext, name: string): Promise<void> {
  await new RedisApiTokens(context.redis, context.config.queuePrefix).revoke(name);
}
