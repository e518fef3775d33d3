import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Logger } from '../logging/logger.js';

/** Wrong passwords one client address may send in a window; its logins are then refused (429) until the window ends. */
export const LOGIN_FAILURES_PER_ADDRESS = 10;
/**
 * Wrong passwords for one user name in a window, from every address together: a guess spread over many addresses is
 * bounded too. Above the address's limit, so that one address (a colleague's typos, one attacker) cannot lock the user
 * out; a lock from many ends with its window, and the next is one more attack's worth.
 */
export const LOGIN_FAILURES_PER_USER = 30;
/** The throttle's window: its counts start afresh at each multiple of this since the epoch. */
export const LOGIN_WINDOW_MS = 60_000;

/** What the store made of a login: refused (a count at its limit), or counted, with the counts that this one brought to their limit. */
export type LoginCount = { refused: 'address' | 'user' } | { refused: undefined; reached: { address: boolean; user: boolean } };

/** Where the failures are counted, and the refusals behind cw_dashboard_login_refusals_total (src/redis/access/redis-login-attempts.ts). */
export interface LoginAttemptStore {
  count(login: {
    address: string;
    userDigest: string;
    window: number;
    right: boolean;
    limits: { address: number; user: number };
    expiresInMs: number;
  }): Promise<LoginCount>;
}

/** A login's fate: let in, refused as wrong (401), or refused unread because of too many failures (429). */
export type LoginVerdict = 'open' | 'wrong' | { throttled: 'address' | 'user'; retryAfterSeconds: number };

export interface LoginThrottleOptions {
  store: LoginAttemptStore;
  logger: Logger;
  /** DASHBOARD_USER: a lock of this user name is logged by name, any other name is not (it may be a password typed there). */
  dashboardUser: string;
  now?: () => number;
  windowMs?: number;
  failuresPerAddress?: number;
  failuresPerUser?: number;
}

/**
 * Throttles guessing the dashboard's password: per client address and per user name tried, at most so many wrong
 * passwords a window; past that, every login from that address or for that name is refused with 429 and Retry-After
 * until the window ends, the right password too (else the answer would still tell right from wrong). A login that
 * succeeds resets no count, its own address's or another's: a right password from one client says nothing about
 * the wrong ones from its address or for its user name (and every page request would cost a write).
 *
 * The counts are kept in Redis, not in memory: every `serve` behind a load balancer shares them (spreading a guess
 * over replicas gains nothing), a restart does not wipe them, and the refusals are a Redis total like every cw_*
 * counter, which /metrics reads at scrape. The cost is a round trip per login, one script that reads and counts.
 * A lock is logged once, by whichever replica counted the failure that reached the limit, not per refusal.
 */
export class LoginThrottle {
  readonly #store: LoginAttemptStore;
  readonly #logger: Logger;
  readonly #dashboardUser: string;
  readonly #now: () => number;
  readonly #windowMs: number;
  readonly #limits: { address: number; user: number };

  constructor(options: LoginThrottleOptions) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#dashboardUser = options.dashboardUser;
    this.#now = options.now ?? Date.now;
    this.#windowMs = options.windowMs ?? LOGIN_WINDOW_MS;
    this.#limits = {
      address: options.failuresPerAddress ?? LOGIN_FAILURES_PER_ADDRESS,
      user: options.failuresPerUser ?? LOGIN_FAILURES_PER_USER,
    };
    for (const [what, n] of Object.entries({ window: this.#windowMs, ...this.#limits }))
      if (!Number.isInteger(n) || n < 1) throw new RangeError(`the login throttle's ${what} must be a whole number >= 1, not ${n}`);
  }

  /** A login from `ip` as `user`, whose password was (`right`) or was not the dashboard's. Rejects when Redis does not answer. */
  async login(ip: string, user: string, right: boolean): Promise<LoginVerdict> {
    const now = this.#now();
    const window = Math.floor(now / this.#windowMs);
    const windowEnd = (window + 1) * this.#windowMs;
    const address = throttledAddressOf(ip);
    const count = await this.#store.count({
      address,
      userDigest: createHash('sha256').update(user, 'utf8').digest('hex'),
      window,
      right,
      limits: this.#limits,
      // The rest of the window, and one more for a replica whose clock is behind (it still counts in this window's key).
      expiresInMs: windowEnd - now + this.#windowMs,
    });
    if (count.refused !== undefined)
      return { throttled: count.refused, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
    if (right) return 'open';
    const seconds = Math.ceil((windowEnd - now) / 1000);
    if (count.reached.address)
      this.#logger.warn(
        { address, failures: this.#limits.address, refusedForSeconds: seconds },
        'dashboard logins from this address refused until the window ends: too many wrong passwords',
      );
    if (count.reached.user)
      this.#logger.warn(
        { user: user === this.#dashboardUser ? user : '(not DASHBOARD_USER)', failures: this.#limits.user, refusedForSeconds: seconds },
        'dashboard logins as this user refused until the window ends: too many wrong passwords',
      );
    return 'wrong';
  }
}

/**
 * The address a client is counted by: an IPv4 address as it is (also when IPv4-mapped), an IPv6 one by its /64, the
 * block one host or LAN is usually given (counting each address would give an attacker 2^64 of them).
 */
export function throttledAddressOf(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped !== null) return mapped[1] ?? ip;
  const bare = ip.split('%')[0] ?? ip;
  if (!isIPv6(bare) || bare.includes('.')) return ip;
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
