import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { freePort } from '../support/fault-redis-server.js';

const PASSWORD = 'pw-9f1c2e7a4b';

/**
 * Redis with a password, as docker-compose.yml runs it: REDIS_URL carries the password, the
 * CLI works with it, says what is wrong without it, and never prints it.
 */
describe('a password-protected Redis', () => {
  let server: ChildProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', PASSWORD],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    await new Promise<void>((resolve, reject) => {
      server.stdout?.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      server.on('exit', () => reject(new Error(`redis-server exited:\n${output}`)));
    });
  });

  afterAll(async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
  });

  it('works with the password in REDIS_URL', async () => {
    const result = await runCli(['list', '--json'], { REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}`, QUEUE_PREFIX: 'pw-test' });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toStrictEqual([]);
  });

  it.each([
    ['no password', `redis://127.0.0.1:PORT`, /needs a password/],
    ['a wrong one', `redis://:not-it@127.0.0.1:PORT`, /wrong password/],
  ])('with %s: REDIS_UNAVAILABLE saying so, and the password never printed', async (_label, url, said) => {
    const result = await runCli(['list'], { REDIS_URL: url.replace('PORT', String(port)) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^campaign: REDIS_UNAVAILABLE: /);
    expect(result.stderr).toMatch(said);
    expect(result.stderr).not.toContain('not-it');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});
