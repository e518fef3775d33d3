import type { LoginAttemptStore, LoginCount } from '../../dashboard/login-throttle.js';
import type { RedisClient } from '../key-scope.js';
import { LUA_DIR, loadLuaCommand } from '../lua-scripts.js';
import { readyWithin } from '../redis-connection.js';
import { dashboardLoginKeys } from '../service-keys.js';

/** The login's script (src/redis/lua/dashboard/login-attempt.lua): its header says why it reads and counts in one step. */
const LOGIN_ATTEMPT = loadLuaCommand('login-attempt', new URL('dashboard/', LUA_DIR));

/** How long a login waits for a connection still coming up (then it fails: the page answers 503). */
const CONNECT_WAIT_MS = 1000;

interface LoginCommands {
  cwDashboardLogin(
    address: string,
    user: string,
    refusals: string,
    login: 'right' | 'wrong',
    addressLimit: string,
    userLimit: string,
    expiresInMs: string,
  ): Promise<(string | number)[]>;
}

/** The dashboard's failed logins and refusals in Redis, under the prefix, shared by every `serve` on it (dashboardLoginKeys). */
export class RedisLoginAttempts implements LoginAttemptStore {
  readonly #redis: RedisClient & LoginCommands;
  readonly #keys: ReturnType<typeof dashboardLoginKeys>;

  constructor(redis: RedisClient, prefix: string) {
    if (!('cwDashboardLogin' in redis)) redis.defineCommand('cwDashboardLogin', LOGIN_ATTEMPT);
    this.#redis = redis as RedisClient & LoginCommands;
    this.#keys = dashboardLoginKeys(prefix);
  }

  async count(login: Parameters<LoginAttemptStore['count']>[0]): Promise<LoginCount> {
    await readyWithin(this.#redis, CONNECT_WAIT_MS);
    const [outcome, address, user] = await this.#redis.cwDashboardLogin(
      this.#keys.address(login.address, login.window),
      this.#keys.user(login.userDigest, login.window),
      this.#keys.refusals,
      login.right ? 'right' : 'wrong',
      String(login.limits.address),
      String(login.limits.user),
      String(Math.max(1, Math.ceil(login.expiresInMs))),
    );
    if (outcome === 'address' || outcome === 'user') return { refused: outcome };
    if (outcome === 'open') return { refused: undefined, reached: { address: false, user: false } };
    if (outcome === 'failed') return { refused: undefined, reached: { address: Number(address) === 1, user: Number(user) === 1 } };
    throw new Error(`the dashboard login script answered ${String(outcome)}`);
  }
}

/** cw_dashboard_login_refusals_total's series: reason → the dashboard's login refusals so far, every `serve` together. */
export async function readLoginRefusals(redis: RedisClient, prefix: string): Promise<[reason: string, total: number][]> {
  const hash = await redis.hgetall(dashboardLoginKeys(prefix).refusals);
  return Object.entries(hash).map(([reason, n]) => [reason, Number(n) || 0]);
}
