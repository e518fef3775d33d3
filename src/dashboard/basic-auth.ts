import { createHash, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../config/secret.js';

export interface DashboardCredentials {
  user: string;
  password: Secret;
}

/** Asked of a browser that sent no (or wrong) credentials. */
export const BASIC_AUTH_CHALLENGE = 'Basic realm="campaign-worker dashboard", charset="UTF-8"';

/** The user and password an `Authorization: Basic …` header carries (RFC 7617: base64 of `user:password`, UTF-8). */
export interface BasicLogin {
  user: string;
  password: string;
}

/** The login a header carries; undefined for none, another scheme, or one that does not decode to `user:password`. */
export function basicLoginOf(header: string | undefined): BasicLogin | undefined {
  const match = header === undefined ? null : /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  const decoded = match === null ? '' : Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Whether a login is the dashboard's user and password. Both are compared as SHA-256 digests
 * with timingSafeEqual, and both comparisons always run, so the time taken says nothing about
 * which part or how much of it matched.
 */
export function basicLoginMatches(login: BasicLogin | undefined, credentials: DashboardCredentials): boolean {
  const userOk = timingSafeEqual(digest(login?.user ?? ''), digest(credentials.user));
  const passwordOk = timingSafeEqual(digest(login?.password ?? ''), digest(credentials.password.reveal()));
  return login !== undefined && userOk && passwordOk;
}

/** Whether an `Authorization: Basic …` header carries the user and password. */
export function basicAuthMatches(header: string | undefined, credentials: DashboardCredentials): boolean {
  return basicLoginMatches(basicLoginOf(header), credentials);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
