import type { PrivateRedis, RedisStarter } from './private-redis.js';

const IMAGE = 'redis:7-alpine';

/**
 * A Redis container through testcontainers (a development dependency), where a Docker (or
 * compatible) engine answers. Its reaper container removes it if this process dies first.
 */
export function redisContainer(): RedisStarter {
  return {
    name: 'Docker through testcontainers',
    async start(): Promise<PrivateRedis> {
      const { RedisContainer } = await import('@testcontainers/redis').catch(() => {
        throw new Error('not installed (a development dependency: run `npm install` in a clone)');
      });
      const container = await new RedisContainer(IMAGE).start();
      return {
        url: container.getConnectionUrl(),
        description:
          `a ${IMAGE} container (${container.getId().slice(0, 12)}) through testcontainers on ` +
          `${container.getHost()}:${container.getPort()}`,
        async stop() {
          await container.stop();
        },
      };
    },
  };
}
