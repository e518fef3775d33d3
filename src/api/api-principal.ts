import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { allows, authenticate, type ApiScope, type ApiTokenLookup } from '../http/api-tokens.js';
import { HeadedAppError } from './headed-error.js';
import type { DashboardSessions } from '../http/dashboard-sessions.js';

/** Who made an API request: a token (by name), or a dashboard user through the pages (by DASHBOARD_USER). */
export interface ApiCaller {
  kind: 'token' | 'dashboard';
  name: string;
  scope: ApiScope;
}

const SESSION_REFUSAL_CODES = { 401: 'API_TOKEN_MISSING', 403: 'API_CSRF_REFUSED', 429: 'DASHBOARD_LOGIN_THROTTLED' } as const;

/** What the dashboard's pages may do through the API: what their buttons do (create and control), never opt-outs or tokens. */
const DASHBOARD_SCOPE: ApiScope = 'send';

/**
 * The caller of a request: a bearer token (needed even on loopback), or the dashboard's
 * pages, which carry the page's CSRF token in `X-CSRF-Token` instead (and the basic auth the
 * browser already sends). Refusals are AppErrors with stable codes: 401 or 403.
 */
export async function callerOf(
  request: FastifyRequest,
  tokens: ApiTokenLookup,
  sessions: DashboardSessions | undefined,
): Promise<ApiCaller> {
  const header = request.headers.authorization;
  const bearer = header !== undefined && /^\s*bearer\s/i.test(header);
  if (!bearer && sessions !== undefined && request.headers['x-csrf-token'] !== undefined) {
    const session = await sessions.apiSession(request);
    if ('refused' in session)
      throw new HeadedAppError(SESSION_REFUSAL_CODES[session.status], `Refused: ${session.refused}`, session.headers ?? {});
    return { kind: 'dashboard', name: session.user, scope: DASHBOARD_SCOPE };
  }
  const principal = await authenticate(header, tokens);
  if (principal instanceof AppError) throw principal;
  return { kind: 'token', name: principal.name, scope: principal.scope };
}

/** Refuses a caller whose scope is narrower than what the route needs (403). */
export function requireScope(caller: ApiCaller, needed: ApiScope): void {
  if (allows(caller.scope, needed)) return;
  const who = caller.kind === 'token' ? `The token "${caller.name}"` : 'The dashboard';
  throw new AppError('API_SCOPE_REFUSED', `${who} has scope ${caller.scope}; this request needs ${needed} or wider`);
}

/** A caller's key for per-caller limits and idempotency keys. */
export function callerKey(caller: ApiCaller): string {
  return `${caller.kind}:${caller.name}`;
}
