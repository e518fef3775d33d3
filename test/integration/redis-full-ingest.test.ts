import { Redis } from 'ioredis';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { RedisServer } from '../support/fault-redis-server.js';

const ROWS = 20_000;

/**
 * Redis full is a clear stop, not a loss: `campaign send` into a Redis whose maxmemory is
 * reached part-way stops with REDIS_FULL (what happened, what to do), every row it recorded
 * recorded whole; once memory is raised, the continued send adds exactly the rest.
 */
describe('campaign send into a full Redis (maxmemory, noeviction)', () => {
  let server: RedisServer;
  let redis: Redis;
  let dir: { dir: string; cleanup: () => Promise<void> };
  let env: Record<string, string>;
  const file = () => join(dir.dir, 'recipients.csv');

  beforeAll(async () => {
    server = await RedisServer.start();
    redis = new Redis(server.url);
    dir = await tempDir();
    await writeCampaignCsv(file(), ROWS);
    env = {
      REDIS_URL: server.url,
      QUEUE_PREFIX: 'full',
      LOG_LEVEL: 'silent',
      TEMPLATES_FILE: join(process.cwd(), 'samples/templates.json'),
      WHATSAPP_PHONE_NUMBER_ID: '1234567',
      REPORTS_DIR: dir.dir,
    };
  });
  afterAll(async () => {
    redis.disconnect();
    await server.cleanup();
    await dir.cleanup();
  });

  it('stops with REDIS_FULL, keeps what it recorded, and a continued send adds exactly the rest', async () => {
    const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    // Room for a few thousand rows, not for twenty thousand.
    await redis.config('SET', 'maxmemory', String(used + 2 * 1024 * 1024));
    const args = ['send', file(), '--template', 'order_update', '--language', 'en_US', '--params', 'first_name,order_id', '--json'];
    const full = await runCli(args, env);
    expect(full.code).not.toBe(0);
    expect(full.stderr).toMatch(/^campaign: REDIS_FULL: Redis is out of memory \(maxmemory reached\): campaign (\S+) stopped reading/m);
    expect(full.stderr).not.toMatch(/INTERNAL_ERROR|a bug/);
    const id = /campaign (\S+) stopped reading/.exec(full.stderr)?.[1] ?? '';
    expect(full.stderr).toContain(`then the same send with --campaign ${id} adds the rest`);

    await redis.config('SET', 'maxmemory', '0');
    const rest = await runCli([...args, '--campaign', id], env);
    expect(rest.stderr).not.toMatch(/REDIS_FULL|INTERNAL_ERROR/);
    expect(rest.code).toBe(0);
    const status = await runCli(['status', id, '--json'], env);
    const view = JSON.parse(status.stdout) as { total: number; queued: number; rejected: number; skipped: number };
    // Every row once: none lost, none twice.
    expect(view).toMatchObject({ total: ROWS, queued: ROWS, rejected: 0, skipped: 0 });
  });
});
