import type { AppContext } from '../../app/app-context.js';
import { AppError } from '../../errors/app-error.js';
import { API_SCOPES, isApiScope, isApiTokenName, type StoredApiToken } from '../../http/api-tokens.js';
import { RedisApiTokens, type CreatedApiToken } from '../../redis/access/redis-api-tokens.js';
import { parseDuration } from '../../campaigns/spec/time-options.js';

/**
 * `campaign tokens create|list|revoke`: the bearer tokens of the HTTP API, under this
 * QUEUE_PREFIX. A token is shown once, when created; Redis keeps only its SHA-256.
 */
export interface CreateTokenOptions {
  name: string;
  scope: string;
  expires?: string | undefined;
}

export async function createToken(context: AppContext, options: CreateTokenOptions): Promise<CreatedApiToken> {
  if (!isApiTokenName(options.name))
    throw new AppError(
      'OPTION_INVALID',
      `--name "${options.name}": a letter or digit, then letters, digits, ".", "_" or "-" (at most 64 characters)`,
    );
  if (!isApiScope(options.scope)) throw new AppError('OPTION_INVALID', `--scope "${options.scope}": one of ${API_SCOPES.join(', ')}`);
  const expiresIn = options.expires === undefined ? undefined : parseDuration('--expires', options.expires);
  return new RedisApiTokens(context.redis, context.config.queuePrefix).create(options.name, options.scope, expiresIn);
}

export async function listTokens(context: AppContext): Promise<Omit<StoredApiToken, 'hash'>[]> {
  return new RedisApiTokens(context.redis, context.config.queuePrefix).list();
}

export async function revokeToken(context: AppContext, name: string): Promise<string> {
  await new RedisApiTokens(context.redis, context.config.queuePrefix).revoke(name);
  return `Token "${name}" is revoked: requests that carry it are refused (API_TOKEN_INVALID)`;
}

/** `tokens create --json`: the one place the token is written out. */
export function createdJson(created: CreatedApiToken): string {
  return JSON.stringify({
    name: created.name,
    scope: created.scope,
    token: created.token.reveal(),
    expiresAt: isoOrNull(created.expiresAt),
  });
}

export function createdText(created: CreatedApiToken): string {
  const expires = created.expiresAt === null ? 'does not expire' : `expires ${new Date(created.expiresAt).toISOString()}`;
  return [
    `Token "${created.name}" (scope ${created.scope}, ${expires}):`,
    '',
    `  ${created.token.reveal()}`,
    '',
    'It is shown this once and cannot be shown again: keep it in your secret store now.',
    'Requests send it as "Authorization: Bearer <token>".',
  ].join('\n');
}

export function tokensJson(tokens: Omit<StoredApiToken, 'hash'>[]): string {
  return JSON.stringify(
    tokens.map((t) => ({
      name: t.name,
      scope: t.scope,
      createdAt: new Date(t.createdAt).toISOString(),
      expiresAt: isoOrNull(t.expiresAt),
      lastUsedAt: isoOrNull(t.lastUsedAt),
    })),
  );
}

export function tokensText(tokens: Omit<StoredApiToken, 'hash'>[], now: number = Date.now()): string {
  if (tokens.length === 0) return 'No API tokens under this QUEUE_PREFIX.';
  const rows = tokens.map((t) => [
    t.name,
    t.scope,
    isoOrDash(t.createdAt),
    t.expiresAt === null ? 'never' : `${isoOrDash(t.expiresAt)}${t.expiresAt <= now ? ' (expired)' : ''}`,
    t.lastUsedAt === null ? 'never' : isoOrDash(t.lastUsedAt),
  ]);
  const all = [['NAME', 'SCOPE', 'CREATED', 'EXPIRES', 'LAST USED'], ...rows];
  const widths = all[0]?.map((_, i) => Math.max(...all.map((row) => row[i]?.length ?? 0))) ?? [];
  return all
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function isoOrDash(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}
