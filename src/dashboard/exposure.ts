import { isIP } from 'node:net';
import type { Secret } from '../config/secret.js';
import { AppError } from '../errors/app-error.js';

/** 127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and `localhost`: addresses only this host reaches. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) !== 6) return false;
  // The URL parser writes an IPv6 address in its one short form (::ffff:127.0.0.1 → ::ffff:7f00:1).
  const canonical = new URL(`http://[${h}]/`).hostname;
  return canonical === '[::1]' || canonical.startsWith('[::ffff:7f');
}

/**
 * `campaign serve` binds `host` only if the campaigns page cannot be reached without a
 * password: a loopback address (a proxy on this host forwards to it), or DASHBOARD_PASSWORD set.
 */
export function checkDashboardExposure(host: string, password: Secret | undefined): void {
  if (password !== undefined || isLoopbackHost(host)) return;
  throw new AppError(
    'DASHBOARD_PASSWORD_REQUIRED',
    `--host ${host} would open the campaigns page, its pause/resume/cancel controls and /queues to the network without a password: ` +
      'set DASHBOARD_PASSWORD (and DASHBOARD_USER, default admin) for HTTP basic auth, or listen on --host 127.0.0.1 behind your proxy',
  );
}
