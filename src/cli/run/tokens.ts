import type { StoredApiToken } from '../../http/api-tokens.js';
import { textTable } from '../text-table.js';
import type { CreatedApiToken } from '../../redis/access/redis-api-tokens.js';

/** `campaign tokens revoke NAME`: what it prints once revokeToken (src/app/tokens.ts) is done. */
export function revokedText(name: string): string {
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
  return textTable(all);
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function isoOrDash(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}
