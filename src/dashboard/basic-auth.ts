import { createHash, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../config/secret.js';

export interface DashboardCredentials {
  user: string;
  password: Secret;
}

/** Asked of a browser that sent no (or wrong) credentials. */
export const BASIC_AUTH_CHALLENGE = 'Basic realm="campaign-worker dashboard", charset="UTF-8"';

/**
 * Whether an `Authorization: Basic …` header carries the user and password (RFC 7617: base64
 * of `user:password`, UTF-8). Both are compared as SHA-256 digests with timingSafeEqual, and
 * both comparisons always run, so the time taken says nothing about which part or how much of
 * it matched.
 */
export function basicAuthMatches(header: string | undefined, credentials: DashboardCredentials): boolean {
  const match = header === undefined ? null : /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  const decoded = match === null ? '' : Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? '' : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  const userOk = timingSafeEqual(digest(user), digest(credentials.user));
  const passwordOk = timingSafeEqual(digest(password), digest(credentials.password.reveal()));
  return colon >= 0 && userOk && passwordOk;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
