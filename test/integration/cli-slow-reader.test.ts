import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/csv-files.js';
import { ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';

/**
 * A one-shot command's output to a pipe leaves the process only as the reader takes it: the
 * command waits for its reader (until its deadline, which then says so), and never exits 0 with
 * its output cut short. `list --json` of many campaigns prints one line twice what a pipe holds
 * (64 KB); stdout is a named pipe that the test reads only once the command has exited.
 */

const CLI = fileURLToPath(new URL('../../bin/campaign.js', import.meta.url));
const CAMPAIGNS = 200;
/** Far longer than listing the campaigns takes on a busy machine: what the command stops on is its unread output. */
const DEADLINE_SECONDS = 15;

/** Everything left in the pipe (its writers are gone, so a read of 0 bytes is its end). */
function drain(fd: number): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(65_536);
  for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) chunks.push(Buffer.from(buffer.subarray(0, n)));
  return Buffer.concat(chunks).toString();
}

describe('a one-shot command whose reader stops reading', () => {
  const prefix = freshPrefix('cli-slow-reader');
  let redis: Redis;
  let dir: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    redis = testRedis();
    dir = await tempDir();
    const ledger = new RedisLedger(redis, prefix);
    for (let i = 0; i < CAMPAIGNS; i++) {
      await ledger.createCampaign(ledgerTestDefinition(`slow-${i}`));
      await ledger.finishIngest(`slow-${i}`);
    }
  });

  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
    await dir.cleanup();
  });

  it('waits for it, and past its deadline exits 124 saying so, rather than exit 0 with its output cut short', async () => {
    const fifo = join(dir.dir, 'stdout');
    execFileSync('mkfifo', [fifo]);
    // The read end, opened first (without blocking) and not read until the command has exited.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    const env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn', CLI_TIMEOUT_SECONDS: String(DEADLINE_SECONDS) };
    const child = spawn(process.execPath, [CLI, 'list', '--json'], { env: { ...process.env, ...env }, stdio: ['ignore', writer, 'pipe'] });
    closeSync(writer);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    const stdout = drain(reader);
    closeSync(reader);

    // A command that exited 0 must have printed all of it.
    if (code === 0) expect(JSON.parse(stdout)).toHaveLength(CAMPAIGNS);
    expect(code, `${stderr}\n(${stdout.length} bytes of stdout)`).toBe(124);
    expect(stderr).toMatch(
      new RegExp(
        `COMMAND_TIMEOUT: \`campaign list\` did not finish within ${DEADLINE_SECONDS} s; it was still waiting for its output to be read`,
      ),
    );
  });
});
