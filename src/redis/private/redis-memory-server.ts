import type { PrivateRedis, RedisStarter } from './private-redis.js';

/**
 * redis-memory-server (a development dependency): it builds Redis from source on first use,
 * which needs a C compiler, make and internet access, and keeps the build in its cache
 * (node_modules/.cache) for the next run. Its install-time build is turned off in
 * package.json (`redisMemoryServer.disablePostinstall`): `npm install` downloads nothing.
 * `announce` is told before the build may start, since the first one takes a minute or more.
 */
export function redisMemoryServer(announce: (line: string) => void): RedisStarter {
  return {
    name: 'redis-memory-server',
    async start(): Promise<PrivateRedis> {
      const { RedisMemoryServer } = await import('redis-memory-server').catch(() => {
        throw new Error('not installed (a development dependency: run `npm install` in a clone)');
      });
      announce('Starting Redis with redis-memory-server (on first use it downloads and builds Redis: a minute or more)…');
      const server = await RedisMemoryServer.create({ instance: { ip: '127.0.0.1' } });
      const port = await server.getPort();
      const info = server.getInstanceInfo();
      const pid = info === false ? undefined : info.childProcess?.pid;
      return {
        url: `redis://127.0.0.1:${port}`,
        description: `redis-memory-server (pid ${pid ?? '?'}) on 127.0.0.1:${port}`,
        async stop() {
          await server.stop();
        },
      };
    },
  };
}
