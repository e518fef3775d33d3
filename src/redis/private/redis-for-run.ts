import { connect } from 'node:net';
import { redactUrl } from '../redis-connection.js';
import type { PrivateRedis } from './private-redis.js';

/** The Redis a run (the demo) uses, the line that says which, and how to let it go. */
export interface RedisForRun {
  /** The REDIS_URL to run with; undefined: the configured REDIS_URL / REDIS_CLUSTER_NODES. */
  url: string | undefined;
  line: string;
  /** Stops the private Redis, if one was started; otherwise does nothing. */
  stop(): Promise<void>;
}

export interface RedisForRunSources {
  env: Record<string, string | undefined>;
  /** Where a Redis is looked for when the environment names none (REDIS_URL's default). */
  defaultUrl: string;
  listens(url: string): Promise<boolean>;
  startPrivate(): Promise<PrivateRedis>;
}

/**
 * A Redis the environment names (REDIS_URL or REDIS_CLUSTER_NODES, as every command uses it);
 * else the one at the default address, when something listens there; else a private one,
 * started for this run. Something listening at the default address counts even if it then
 * refuses us (a password): that is the user's Redis, and the usual message says what it wants.
 */
export async function redisForRun(sources: RedisForRunSources): Promise<RedisForRun> {
  const nothing = () => Promise.resolve();
  if (isSet(sources.env.REDIS_CLUSTER_NODES))
    return { url: undefined, line: 'Redis: the cluster REDIS_CLUSTER_NODES names.', stop: nothing };
  const configured = sources.env.REDIS_URL;
  if (configured !== undefined && isSet(configured))
    return { url: undefined, line: `Redis: ${redactUrl(configured)} (REDIS_URL).`, stop: nothing };
  if (await sources.listens(sources.defaultUrl)) return { url: sources.defaultUrl, line: `Redis: ${sources.defaultUrl}.`, stop: nothing };
  const redis = await sources.startPrivate();
  return {
    url: redis.url,
    line:
      `Redis: nothing answers at ${sources.defaultUrl}, so this run started its own: ` +
      `${redis.description}; it is stopped when the run ends.`,
    stop: () => redis.stop(),
  };
}

/** Blank counts as unset, as in the configuration. */
function isSet(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

/** Whether something accepts a TCP connection at the URL's host and port (6379 when it names none). */
export async function somethingListens(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port: port === '' ? 6379 : Number(port), timeout: timeoutMs });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
