import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../support/key-slot.js';
import { describeLedgerContract } from '../support/ledger-contract.js';
import { describeMarketingCaps } from '../support/marketing-cap-spec.js';
import { RedisServer } from '../support/fault-redis-server.js';
import { Pipeline } from '../support/pipeline.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { join } from 'node:path';

/**
 * Every Lua script stays in one cluster slot. A cluster refuses a script's undeclared key only
 * when another node serves its slot: Redis 7.0 lets a script read a key of another slot on
 * the same node (tried on a 3-master cluster), so a cross-slot script can work by luck until
 * the next resharding. So this test watches, on a Redis of its own, every command each
 * script ran (MONITOR shows them with source "lua") and checks every key a script declared
 * or touched has the same slot, for everything the ledger contract, the marketing caps'
 * scenarios, the whole send path (feeder, BullMQ, pacer, claims, settles) and a purge run.
 */

interface ScriptCall {
  declared: string[];
  touched: string[][];
}

let server: RedisServer;
let watcher: Redis;
/** MONITOR runs on a connection of its own, which ioredis opens beside the watcher's. */
let monitor: Redis;
const lines: { source: string; args: string[] }[] = [];

beforeAll(async () => {
  server = await RedisServer.start();
  watcher = new Redis(server.url);
  // The watcher's own ready check (INFO) must be answered before MONITOR starts: a monitor line
  // arriving in the same read as MONITOR's OK reaches ioredis before it is in monitor mode
  // ("Command queue state error", seen once in a full run).
  await watcher.ping();
  monitor = await watcher.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => lines.push({ source, args }));
});

afterAll(async () => {
  monitor.disconnect();
  watcher.disconnect();
  await server.cleanup();
});

describe('the key slot of a name', () => {
  it('is Redis Cluster’s (CRC16 mod 16384, hash tags)', () => {
    // Values from CLUSTER KEYSLOT on Redis 7.0.
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('somekey')).toBe(11058);
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'));
    expect(keySlot('cw:{106540352242922}:campaign:x:rows')).toBe(keySlot('106540352242922'));
    expect(keySlot('foo{}{bar}')).toBe(keySlot('foo{}{bar}')); // an empty tag hashes the whole key
  });
});

describeLedgerContract('RedisLedger, every script call watched', () => new Redis(server.url, { maxRetriesPerRequest: null }));
describeMarketingCaps("Meta's marketing caps, every script call watched", () => new Redis(server.url, { maxRetriesPerRequest: null }));

describe('the send path and a purge, every script call watched', () => {
  it('sends a campaign through feeder, BullMQ, pacer, claims and settles; then purges it', async () => {
    const p = await Pipeline.start({ label: 'slots-send', rate: 200, redisUrl: server.url });
    const dir = await tempDir();
    try {
      const file = join(dir.dir, 'campaign.csv');
      await writeCampaignCsv(file, 60);
      const done = p.completed('c-slots');
      await p.produce(file, p.definition('c-slots'));
      p.startWorker();
      await done;
      expect((await p.ledger.status('c-slots'))?.counts).toMatchObject({ total: 60, sent: 60 });
      expect((await p.ledger.purge('c-slots')).rows).toBe(60);
    } finally {
      await p.close();
      await dir.cleanup();
    }
  });
});

describe('what was watched', () => {
  it('every script call declared and touched keys of one slot only', () => {
    const calls = scriptCalls();
    // The contract and the send path run thousands of script calls; a handful would mean the watch failed.
    expect(calls.length).toBeGreaterThan(500);
    const crossing = calls
      .map((call) => ({ call, slots: new Set([...call.declared, ...call.touched.flat()].map(keySlot)) }))
      .filter(({ slots }) => slots.size > 1);
    expect(
      crossing.slice(0, 3).map(({ call }) => call),
      `${crossing.length} script calls crossed slots`,
    ).toStrictEqual([]);
  });
});

/**
 * The watched lines as script calls: an EVAL/EVALSHA line and the "lua" lines after it (MONITOR
 * shows the call first, then what the script ran; a script runs atomically, so nothing else
 * comes between).
 */
function scriptCalls(): ScriptCall[] {
  const calls: ScriptCall[] = [];
  let current: ScriptCall | undefined;
  for (const { source, args } of lines) {
    if (source === 'lua') {
      if (current === undefined) throw new Error(`a script's command with no script call before it: ${args.join(' ')}`);
      current.touched.push(keysOf(args));
      continue;
    }
    const name = (args[0] ?? '').toLowerCase();
    current = undefined;
    if (name === 'evalsha' || name === 'eval') {
      current = { declared: args.slice(3, 3 + Number(args[2] ?? 0)), touched: [] };
      calls.push(current);
    }
  }
  return calls;
}

/** The keys of a command a script ran (the commands the scripts use; anything else fails the test). */
function keysOf(args: string[]): string[] {
  const name = (args[0] ?? '').toLowerCase();
  if (NO_KEYS.has(name)) return [];
  if (FIRST_KEY.has(name)) return [args[1] ?? ''];
  if (ALL_KEYS.has(name)) return args.slice(1);
  if (name === 'rpoplpush' || name === 'lmove' || name === 'smove') return args.slice(1, 3);
  throw new Error(`script-slots.test.ts does not know the keys of ${name}: add it`);
}

const NO_KEYS = new Set(['time', 'ping']);
const ALL_KEYS = new Set(['del', 'unlink', 'exists', 'mget']);
const FIRST_KEY = new Set(
  (
    'get set setnx incr incrby decr decrby getdel expire pexpire pttl ttl persist type ' +
    'hget hset hsetnx hmget hmset hdel hexists hgetall hincrby hlen hkeys hvals hscan hrandfield ' +
    'zadd zrem zscore zrange zrevrange zrangebyscore zrevrangebyscore zremrangebyscore ' +
    'zremrangebyrank zcard zcount zincrby zpopmin zrank zmscore ' +
    'lpush rpush lpop rpop lrange llen lrem lindex lset ltrim linsert lpos ' +
    'sadd srem smembers sismember scard spop ' +
    'setbit getbit bitcount bitfield xadd xlen xtrim xdel xrange xack xclaim xautoclaim xpending'
  ).split(' '),
);
