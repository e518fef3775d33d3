import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventStreamKey } from '../../src/redis/events/event-keys.js';
import { RedisHookRegistry } from '../../src/redis/hooks/redis-hook-registry.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { CliProcess, runCli } from '../support/cli-process.js';
import { HookReceiver } from '../support/hook-receiver.js';
import { LEDGER_TEST_NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

/**
 * `campaign serve` (the built CLI, a child process) SIGKILLed while a hook's events are queued
 * and its receiver is down: some events in the hook's outbox (the fanout moved them, the
 * delivery kept failing), the rest still in the number's event stream (written after). A second
 * `serve`, started once the receiver is back, delivers every one of them.
 */
const LISTENING = /Webhook service listening on (http:\/\/127\.0\.0\.1:\d+)/;
const NUMBER = LEDGER_TEST_NUMBER;
const ID = 'hooked';
const ROWS = 400;
const HALF = ROWS / 2;

describe('campaign serve killed while hook events are queued (real processes, real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let receiver: HookReceiver;
  const processes: CliProcess[] = [];
  const env = () => ({
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: prefix,
    WHATSAPP_APP_SECRET: 'hooks-crash-app-secret',
    WEBHOOK_VERIFY_TOKEN: 'hooks-crash-verify',
    LOG_LEVEL: 'info',
  });

  beforeEach(async () => {
    redis = testRedis();
    prefix = freshPrefix('hooks-serve-crash');
    receiver = await HookReceiver.start();
  });

  afterEach(async () => {
    for (const p of processes.splice(0)) await p.stop('SIGKILL');
    await receiver.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  function serve(): CliProcess {
    const p = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], env());
    processes.push(p);
    return p;
  }

  it(`${ROWS} rows' row.sent and the campaign's events: none lost across a SIGKILL`, async () => {
    const added = await runCli(['hooks', 'add', receiver.url, '--events', 'all', '--name', 'crm', '--json'], env());
    expect(added.code, added.stderr).toBe(0);
    const { secret } = JSON.parse(added.stdout) as { secret: string };
    receiver.secret = secret;
    receiver.answer = () => 503;

    // A campaign created after the hook emits events; its first half sent now.
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, ID, ROWS);
    const { jobs } = await feedAll(ledger, NUMBER, ROWS);
    expect(jobs).toHaveLength(ROWS);
    const send = async (from: number, to: number) => {
      const chunk = jobs.slice(from, to);
      await Promise.all(chunk.map((job) => ledger.claim(job, NUMBER)));
      await Promise.all(chunk.map((job) => ledger.settle(job, { status: 'sent', wamid: `wamid.${job.row}` }, NUMBER)));
    };
    await send(0, HALF);

    const a = serve();
    await a.waitFor(LISTENING);
    const registry = new RedisHookRegistry(redis, prefix);
    // A moved the first half (and campaign.started) to the outbox, and is failing to deliver it.
    await waitFor(
      async () => {
        if (a.child.exitCode !== null) throw new Error(`serve A exited:\n${a.output}`);
        return { figures: await registry.figures('crm'), stream: await redis.xlen(eventStreamKey(prefix, NUMBER)) };
      },
      {
        what: 'the first half in the outbox, its delivery failing',
        timeoutMs: 30_000,
        intervalMs: 100,
        until: ({ figures, stream }) => figures.waiting === HALF + 1 && stream === 0 && figures.retried > 0,
      },
    );
    // The second half (and campaign.completed) written, and A killed at once.
    await send(HALF, ROWS);
    expect((await ledger.status(ID))?.state).toBe('completed');
    await a.stop('SIGKILL');
    const atKill = { figures: await registry.figures('crm'), stream: await redis.xlen(eventStreamKey(prefix, NUMBER)) };
    console.info(`at the kill: ${atKill.figures.waiting} events in the outbox, ${atKill.stream} in the number's stream`);
    expect(receiver.taken.size).toBe(0);
    expect(atKill.figures.waiting + atKill.stream).toBeGreaterThanOrEqual(ROWS + 2);

    receiver.answer = () => 200;
    const b = serve();
    await b.waitFor(LISTENING);
    await waitFor(
      async () => {
        if (b.child.exitCode !== null) throw new Error(`serve B exited:\n${b.output}`);
        return { taken: receiver.takenOf(ID).length, figures: await registry.figures('crm') };
      },
      {
        what: 'every event delivered',
        timeoutMs: 60_000,
        intervalMs: 200,
        until: ({ taken, figures }) => taken >= ROWS + 2 && figures.waiting === 0,
      },
    );

    const events = receiver.takenOf(ID);
    const sentRows = new Set(events.filter((e) => e.type === 'row.sent').map((e) => e.row));
    expect(sentRows.size).toBe(ROWS);
    expect(events.filter((e) => e.type.startsWith('campaign.')).map((e) => e.type)).toEqual(['campaign.started', 'campaign.completed']);
    expect(events.find((e) => e.row === 7)).toMatchObject({ type: 'row.sent', message_id: 'wamid.7', phone_number_id: NUMBER });
    expect(receiver.batches.every((batch) => batch.signatureValid && batch.timestampMatches && batch.events.length <= 100)).toBe(true);
    // In the order they were written (the number's stream, then one outbox): started first, completed last.
    expect(events[0]?.type).toBe('campaign.started');
    expect(events.at(-1)?.type).toBe('campaign.completed');
    expect(await registry.figures('crm')).toMatchObject({ dead: 0, waiting: 0 });
    expect(a.output + b.output).not.toContain(secret);
    // A graceful stop gives the leases back and exits 0.
    expect(await b.stop('SIGTERM')).toBe(0);
  });
});
