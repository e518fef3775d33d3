import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/redis-ledger.js';
import { wamidsKey } from '../../src/redis/ledger-keys.js';
import { scanKeys } from '../../src/redis/key-migration.js';
import { FaultHarness } from '../support/fault-harness.js';
import { restoreKeys, type DumpedKey } from '../support/key-dump.js';
import { redisUrl } from '../support/redis.js';
import { runCli } from '../support/cli-process.js';
import { silentLogger } from '../../src/logging/logger.js';
import { startService } from '../../workers/serve.js';

/**
 * The move from the untagged key layout of builds before 0.1.0 to the cluster one. The
 * fixture is what such a build left in Redis after a real run: campaign A on number …922
 * sent (20 rows, webhooks applied, an opt-out, inbound messages that opened service windows),
 * campaign B on number …923 stopped with 13 of 40 rows sent and jobs waiting in its queue.
 * `campaign migrate-keys` moves it; this version then reads it all and finishes B without
 * sending any of its first 13 rows again.
 */
const FIXTURE = new URL('../fixtures/layout-v1/keys.json', import.meta.url);
const A = 'c20261124-0048-9d23bd';
const B = 'c20261124-0048-1ae137';
const NUMBER_A = '106540352242922';
const NUMBER_B = '106540352242923';

describe('campaign migrate-keys: from the untagged layout to the cluster one', () => {
  let rig: FaultHarness;
  let redis: Redis;

  beforeAll(async () => {
    rig = await FaultHarness.start({ label: 'migrate', rows: 1, sendRate: 0, sandboxMps: 0, phoneNumberIds: [NUMBER_A, NUMBER_B] });
    redis = new Redis(redisUrl());
    await restoreKeys(redis, JSON.parse(await readFile(FIXTURE, 'utf8')) as DumpedKey[], rig.prefix);
  });

  afterAll(async () => {
    await rig?.close();
    redis?.disconnect();
  });

  it('refuses to run on the old layout, moves it (a dry run first), and a second run finds nothing', async () => {
    const refused = await runCli(['status', A], rig.env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/KEY_LAYOUT_OLD: .*campaign migrate-keys/);

    await expect(
      startService({ port: 0, host: '127.0.0.1' }, { ...rig.env, WHATSAPP_APP_SECRET: 's', WEBHOOK_VERIFY_TOKEN: 'v' }, silentLogger()),
    ).rejects.toMatchObject({ code: 'KEY_LAYOUT_OLD' });

    const before = await keyCount();
    const dry = JSON.parse((await rig.cli(['migrate-keys', '--dry-run', '--json'])).stdout) as Record<string, unknown>;
    expect(dry).toMatchObject({ dryRun: true, wamids: 33, campaigns: 2, conflicts: [], unknown: [] });
    expect(await keyCount()).toBe(before);
    expect(await redis.exists(`${rig.prefix}:wamids`)).toBe(1);

    const done = JSON.parse((await rig.cli(['migrate-keys', '--json'])).stdout) as Record<string, unknown>;
    expect(done).toMatchObject({ dryRun: false, moved: dry.moved, wamids: 33, orphanWamids: 0, campaigns: 2, conflicts: [], unknown: [] });
    expect(done.moved).toBeGreaterThan(80);

    const again = JSON.parse((await rig.cli(['migrate-keys', '--json'])).stdout) as Record<string, unknown>;
    expect(again).toMatchObject({ moved: 0, wamids: 0, campaigns: 0, dropped: 0 });
    // Every key is now in a number's scope or the shared one, or one of the few global indexes.
    const left = (await keys()).filter(
      (k) => !k.startsWith(`${rig.prefix}:{`) && !/:(campaigns|campaign-numbers|numbers|templates:.+)$/.test(k),
    );
    expect(left).toStrictEqual([]);
  });

  it('this version reads what was moved: counts, rows, opt-outs, the message-ID index', async () => {
    expect(await rig.status(A)).toMatchObject({ state: 'completed', total: 20, sent: 20, delivered: 20 });
    expect(await rig.status(B)).toMatchObject({ state: 'running', total: 41, sent: 13, queued: 27, rejected: 1 });
    expect((await rig.cli(['optouts', 'list'])).stdout).toContain('+4915110000019');
    // A late status webhook for one of A's messages still finds its row through the split index.
    const [wamid] = Object.keys(await redis.hgetall(wamidsKey(rig.prefix, NUMBER_A)));
    const ledger = new RedisLedger(redis, rig.prefix);
    const [outcome] = await ledger.applyStatuses([{ wamid: wamid ?? '', kind: 'delivered', at: Date.now(), phoneNumberId: NUMBER_A }]);
    expect(outcome?.outcome).toBe('same');
  });

  it('a worker of this version finishes campaign B without resending its first 13 rows', async () => {
    await rig.startWorker({ WHATSAPP_PHONE_NUMBER_ID: NUMBER_B });
    const status = await rig.waitForCompletion(B, 60_000);
    expect(status).toMatchObject({ state: 'completed', total: 41, sent: 40, rejected: 1 });
    expect(rig.accepted().filter((m) => m.phoneNumberId === NUMBER_B)).toHaveLength(27);
    expect(rig.duplicatesSeen()).toBe(0);
  });

  async function keys(): Promise<string[]> {
    return scanKeys(redis, `${rig.prefix}:*`);
  }

  async function keyCount(): Promise<number> {
    return (await keys()).length;
  }
});
