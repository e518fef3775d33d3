import type { RedisStarter } from './private-redis.js';
import { redisContainer } from './redis-container.js';
import { redisMemoryServer } from './redis-memory-server.js';
import { redisServerOnPath } from './redis-server-process.js';

/**
 * The ways to a private Redis, cheapest first: a redis-server already installed starts in
 * milliseconds; redis-memory-server needs a compiler and internet access the first time;
 * Docker needs an engine and, the first time, the image.
 */
export function privateRedisStarters(pathList: string, announce: (line: string) => void): RedisStarter[] {
  return [redisServerOnPath(pathList), redisMemoryServer(announce), redisContainer()];
}
