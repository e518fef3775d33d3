import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliWithin } from '../support/cli-process.js';
import { redisUrl } from '../support/redis.js';

/**
 * A "Redis" that answers the connection's checks (PING, INFO) and then nothing: every
 * command after them waits forever, as a command behind a wedged connection would.
 */
function silentRedis(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', (data: Buffer) => {
      const text = data.toString('latin1').toUpperCase();
      if (text.includes('PING')) socket.write('+PONG\r\n');
      if (text.includes('INFO')) {
        const info = 'redis_version:7.0.0\r\nloading:0\r\n';
        socket.write(`$${info.length}\r\n${info}\r\n`);
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      }),
    ),
  );
}

/** Every one-shot command ends: past CLI_TIMEOUT_SECONDS it says what it waited for and exits 124. */
describe('a one-shot command has a deadline', () => {
  let redis: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    redis = await silentRedis();
  });
  afterAll(async () => {
    await redis.close();
  });

  it.each([['status', 'c-any'], ['list'], ['report', 'c-any', '--out', '-']])(
    '%s waiting on a Redis that never answers exits 124',
    async (...args) => {
      const result = await runCliWithin(
        args,
        { REDIS_URL: redis.url, QUEUE_PREFIX: 'deadline', LOG_LEVEL: 'silent', CLI_TIMEOUT_SECONDS: '2' },
        30_000,
      );
      expect(result.timedOut).toBe(false);
      expect(result.code).toBe(124);
      expect(result.stderr).toMatch(
        new RegExp(
          `^campaign: COMMAND_TIMEOUT: \`campaign ${args[0]}\` did not finish within 2 s; it was still waiting for .*a network connection`,
          'm',
        ),
      );
    },
  );

  it('a command that did its work ends at once, with no deadline to wait for', async () => {
    const result = await runCliWithin(
      ['list', '--json'],
      { REDIS_URL: redisUrl(), QUEUE_PREFIX: 'deadline-empty', LOG_LEVEL: 'silent', CLI_TIMEOUT_SECONDS: '60' },
      30_000,
    );
    expect(result).toMatchObject({ code: 0, timedOut: false });
    expect(result.stdout.trim()).toBe('[]');
  });
});
