import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addHook, failedHookEvents, listHooks, redeliverHook, removeHook, showHook, testHook } from '../../src/app/hooks.js';
import { loadConfig } from '../../src/config/config.js';
import { isAppError } from '../../src/errors/app-error.js';
import { HookDispatcher } from '../../src/hooks/hook-dispatcher.js';
import { silentLogger } from '../../src/logging/logger.js';
import { EventFanout } from '../../src/redis/events/event-fanout.js';
import { eventStreamKey, hooksRegistryKey } from '../../src/redis/events/event-keys.js';
import { hookKeys } from '../../src/redis/hooks/hook-keys.js';
import { RedisHookOutbox } from '../../src/redis/hooks/redis-hook-outbox.js';
import { RedisHookRegistry } from '../../src/redis/hooks/redis-hook-registry.js';
import { RedisHookLeases } from '../../src/redis/hooks/redis-leases.js';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { HookReceiver } from '../support/hook-receiver.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

/**
 * The hooks' store, fanout and delivery on a real Redis, in this process: the registry and the
 * campaigns' events flag, the fanout's filter, dead letters after the retry window (made short
 * here), `failed` and `redeliver`, and one delivering replica per hook.
 */
const NUMBER = LEDGER_TEST_NUMBER;

async function refusal(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
  throw new Error('not refused');
}

describe('outbound hooks in Redis', () => {
  let redis: Redis;
  let prefix: string;
  let receiver: HookReceiver;
  const stops: (() => Promise<void>)[] = [];
  const context = () => ({ config: loadConfig({ REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix }), redis });

  beforeEach(async () => {
    redis = testRedis();
    prefix = freshPrefix('hooks-outbox');
    receiver = await HookReceiver.start();
  });

  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await receiver.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  const eventsFlag = async (id: string) => redis.hget(campaignLedgerKeys(prefix, NUMBER, id).campaign, 'events');

  it('turns the campaigns’ events on with the first hook and off with the last, and removes a hook’s keys with it', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ledger.createCampaign(ledgerTestDefinition('before'));
    expect(await eventsFlag('before')).toBeNull();

    const { hook, secret } = await addHook(context(), { url: receiver.url, events: ['row.*'], name: 'crm' });
    expect(secret.length).toBeGreaterThanOrEqual(40);
    expect(hook).toMatchObject({ name: 'crm', url: receiver.url, figures: { queued: 0, delivered: 0, waiting: 0 } });
    expect(await eventsFlag('before')).toBe('1');
    await ledger.createCampaign(ledgerTestDefinition('after'));
    expect(await eventsFlag('after')).toBe('1');
    // The secret is kept for signing, and shown nowhere else.
    expect(JSON.stringify(await listHooks(context()))).not.toContain(secret);

    const second = await addHook(context(), { url: receiver.url, events: ['all'], campaignId: 'after' });
    expect(second.hook.name).toBe('127.0.0.1-' + new URL(receiver.url).port);
    expect(await refusal(addHook(context(), { url: receiver.url, events: ['all'], name: 'crm' }))).toBe('HOOK_INVALID');
    expect(await refusal(addHook(context(), { url: receiver.url, events: ['all'], campaignId: 'nope' }))).toBe('CAMPAIGN_NOT_FOUND');
    expect(await refusal(addHook(context(), { url: receiver.url, events: ['row.sent,nope'] }))).toBe('HOOK_INVALID');
    expect((await listHooks(context())).map((h) => h.name)).toEqual(['127.0.0.1-' + new URL(receiver.url).port, 'crm']);

    await redis.xadd(hookKeys(prefix, 'crm').dead, '*', 'e', '{"id":"x"}', 'at', '1', 'why', 'HTTP 500');
    await removeHook(context(), 'crm');
    const keys = hookKeys(prefix, 'crm');
    expect(await redis.exists(keys.figures, keys.outbox, keys.dead, keys.lease)).toBe(0);
    expect(await eventsFlag('before')).toBe('1');
    await removeHook(context(), second.hook.name);
    expect(await eventsFlag('before')).toBeNull();
    expect(await eventsFlag('after')).toBeNull();
    expect(await redis.exists(hooksRegistryKey(prefix))).toBe(0);
    expect(await refusal(removeHook(context(), 'crm'))).toBe('HOOK_NOT_FOUND');
    expect(await refusal(showHook(context(), 'crm'))).toBe('HOOK_NOT_FOUND');
  });

  it('fans each event out to the hooks that want it, then deletes it from the number’s stream', async () => {
    await new RedisLedger(redis, prefix).createCampaign(ledgerTestDefinition('c1'));
    await addHook(context(), { url: receiver.url, events: ['row.sent'], campaignId: 'c1', name: 'only-c1' });
    await addHook(context(), { url: receiver.url, events: ['row.read', 'campaign.*'], name: 'reads' });
    const stream = eventStreamKey(prefix, NUMBER);
    const entry = (type: string, campaign: string, row: number) =>
      redis.xadd(stream, '*', 't', type, 'c', campaign, 'at', String(Date.now()), 'r', String(row), 'p', '+4915100000001', 'w', 'wamid.X');
    const ids = [await entry('row.sent', 'c1', 1), await entry('row.sent', 'c2', 2), await entry('row.read', 'c2', 3)];
    await entry('row.delivered', 'c1', 4);
    await redis.xadd(stream, '*', 't', 'campaign.completed', 'c', 'c1', 'at', String(Date.now()));

    const fanout = new EventFanout({ redis, prefix, logger: silentLogger() });
    expect(await fanout.fanOutNumber(NUMBER)).toBe(5);
    expect(await redis.xlen(stream)).toBe(0);
    const waiting = async (name: string) => (await new RedisHookOutbox(redis, prefix, name).oldest(100)).map((q) => q.event);
    expect(await waiting('only-c1')).toEqual([
      {
        id: `evt_${NUMBER}_${ids[0]?.replace('-', '_') ?? ''}`,
        type: 'row.sent',
        occurred_at: expect.any(String) as string,
        campaign_id: 'c1',
        phone_number_id: NUMBER,
        row: 1,
        phone: '+4915100000001',
        message_id: 'wamid.X',
      },
    ]);
    expect((await waiting('reads')).map((e) => [e?.type, e?.campaign_id])).toEqual([
      ['row.read', 'c2'],
      ['campaign.completed', 'c1'],
    ]);
    const registry = new RedisHookRegistry(redis, prefix);
    expect(await registry.figures('reads')).toEqual({ queued: 2, delivered: 0, retried: 0, dead: 0, waiting: 2 });
    // A hook removed meanwhile gets nothing, and no outbox comes back.
    await removeHook(context(), 'reads');
    await redis.xadd(stream, '*', 't', 'row.read', 'c', 'c2', 'at', String(Date.now()), 'r', '5');
    await fanout.fanOutNumber(NUMBER);
    expect(await redis.exists(hookKeys(prefix, 'reads').outbox, hookKeys(prefix, 'reads').figures)).toBe(0);
  });

  it('gives a failing batch up after the retry window, shows it in `failed`, and `redeliver` sends it again', async () => {
    const { secret } = await addHook(context(), { url: receiver.url, events: ['all'], name: 'crm' });
    receiver.secret = secret;
    receiver.answer = () => 500;
    const registry = new RedisHookRegistry(redis, prefix);
    const queued = await Promise.all(
      [1, 2, 3].map((row) =>
        redis.xadd(eventStreamKey(prefix, NUMBER), '*', 't', 'row.sent', 'c', 'c1', 'at', String(Date.now()), 'r', String(row)),
      ),
    );
    await new EventFanout({ redis, prefix, logger: silentLogger() }).fanOutNumber(NUMBER);
    const dispatcher = new HookDispatcher({
      hooks: () => registry.all(),
      leases: new RedisHookLeases(redis, prefix),
      outboxOf: (name) => new RedisHookOutbox(redis, prefix, name),
      retryMs: 1500,
      logger: silentLogger(),
      tickMs: 100,
    });
    dispatcher.start();
    stops.push(() => dispatcher.stop());

    await waitFor(() => registry.figures('crm'), {
      what: 'the batch dead',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (f) => f.dead === 3,
    });
    const figures = await registry.figures('crm');
    expect(figures).toMatchObject({ queued: 3, delivered: 0, dead: 3, waiting: 0 });
    expect(figures.retried).toBeGreaterThanOrEqual(3);
    expect(receiver.batches.length).toBeGreaterThanOrEqual(2);
    expect(receiver.batches.every((b) => b.signatureValid && b.timestampMatches && b.hook === 'crm')).toBe(true);
    const failed = await failedHookEvents(context(), 'crm');
    expect(failed.map((f) => [f.event.row, f.reason])).toEqual([
      [1, 'HTTP 500'],
      [2, 'HTTP 500'],
      [3, 'HTTP 500'],
    ]);
    expect(failed.map((f) => f.event.id)).toEqual(queued.map((id) => `evt_${NUMBER}_${String(id).replace('-', '_')}`));

    receiver.answer = () => 200;
    expect(await redeliverHook(context(), 'crm')).toEqual({ redelivered: 3 });
    await waitFor(() => registry.figures('crm'), {
      what: 'redelivered',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (f) => f.delivered === 3,
    });
    expect(await registry.figures('crm')).toMatchObject({ queued: 6, delivered: 3, dead: 3, waiting: 0 });
    expect([...receiver.taken.keys()]).toEqual(failed.map((f) => f.event.id));
    expect(await failedHookEvents(context(), 'crm')).toEqual([]);
    expect((await showHook(context(), 'crm')).figures.lagSeconds).toBeGreaterThan(0);

    const tested = await testHook(context(), 'crm');
    expect(tested).toEqual({ ok: true, status: 200 });
    expect(receiver.batches.at(-1)?.events.map((e) => e.type as string)).toEqual(['hook.test']);
    expect(receiver.batches.at(-1)?.signatureValid).toBe(true);
  });

  it('has one replica deliver a hook at a time; another takes over when it stops', async () => {
    await addHook(context(), { url: receiver.url, events: ['all'], name: 'crm' });
    const registry = new RedisHookRegistry(redis, prefix);
    const replica = () =>
      new HookDispatcher({
        hooks: () => registry.all(),
        leases: new RedisHookLeases(redis, prefix),
        outboxOf: (name) => new RedisHookOutbox(redis, prefix, name),
        retryMs: 60_000,
        logger: silentLogger(),
        tickMs: 100,
      });
    const a = replica();
    const b = replica();
    a.start();
    await waitFor(() => a.delivering(), { what: 'A delivering', timeoutMs: 5000, intervalMs: 50, until: (d) => d.length === 1 });
    b.start();
    stops.push(() => b.stop());
    await b.tick();
    expect(b.delivering()).toEqual([]);
    await a.stop();
    await waitFor(() => b.delivering(), { what: 'B taking over', timeoutMs: 5000, intervalMs: 50, until: (d) => d.length === 1 });
  });
});
