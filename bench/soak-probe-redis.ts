import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { wamidsKey, sentGuardKeys } from '../src/redis/ledger/ledger-keys.js';
import { loadLuaInclude } from '../src/redis/lua-scripts.js';
import { startChild, stopChild } from './support/children.js';
import { coreShare, cpuSeconds } from './support/cpu.js';
import { ensureCsv } from './support/data.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, campaignSend, productEnv } from './support/product.js';
import { deletePrefix, freshPrefix, redisServerPid } from './support/redis.js';
import { startSandboxChild } from './support/sandbox.js';

/**
 * The ledger against small and huge per-number structures: one campaign of `rows` rows sent
 * as the soak sends it (one `campaign worker`, SEND_RATE=0, a sandbox child of its own), once
 * with the number's duplicate guard (`sent` hash) and message-ID index
 * (`wamids` hash) as a fresh campaign finds them, and once with `prefill` entries already in
 * each, as the soak's last tenth finds them (10M). The rate, the CPU each process used per
 * message, and Redis's own time per call of the commands that touch those structures tell
 * whether their size is what slows the soak down.
 *
 * The prefill writes 3 × `prefill` entries: run it against a Redis of its own (REDIS_URL),
 * never a shared one.
 */
export interface RedisPhase {
  label: string;
  guardEntries: number;
  msgPerSecond: number;
  /** CPU µs per message sent: worker, sandbox, redis-server. */
  cpuMicros: { worker: number; sandbox: number; redis: number };
  /** Redis's µs per call (INFO commandstats) of the commands the claim and settle scripts run. */
  usecPerCall: Record<string, number>;
}

const COMMANDS = ['evalsha', 'hset', 'hget', 'zadd', 'zrangebyscore', 'hincrby', 'zrem'];
/** Entries written per Lua call: about 0.1 s of Redis each, so other clients are not starved. */
const PREFILL_CHUNK = 50_000;

const PREFILL_LUA = `${loadLuaInclude('sent-guard-write')}
local sent, wamids = KEYS[1], KEYS[2]
local from, n, campaign, now = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
for i = from, from + n - 1 do
  -- Shaped as the ledger's: a 22-character fingerprint, "campaign/row/ms", a wamid of 28 characters.
  local f = string.format('p%021d', i)
  local at = now - 3600000 + math.floor(i / 1000)
  guardRecord(sent, f, campaign .. '/' .. i .. '/' .. at, 0)
  redis.call('HSET', wamids, 'wamid.' .. string.format('P%021d', i), campaign .. '/' .. i)
end
return n`;

export async function probeRedis(
  options: { rows: number; prefill: number; redis: Redis },
  log: (line: string) => void,
): Promise<RedisPhase[]> {
  const file = await ensureCsv(options.rows);
  const phases: RedisPhase[] = [];
  for (const guardEntries of [0, options.prefill, 0]) {
    phases.push(await phase({ ...options, file, guardEntries }, log));
  }
  return phases;
}

async function phase(
  run: { rows: number; redis: Redis; file: string; guardEntries: number },
  log: (line: string) => void,
): Promise<RedisPhase> {
  const { redis, rows } = run;
  const prefix = freshPrefix('probe');
  const sandbox = await startSandboxChild(undefined, [], ['--retain-accepted', '100000']);
  let worker: ReturnType<typeof startChild> | undefined;
  try {
    const summary = await campaignSend(run.file, prefix);
    if (summary.queued !== rows) throw new Error(`campaign send queued ${summary.queued} of ${rows}`);
    if (run.guardEntries > 0) await prefill(redis, prefix, summary.id, run.guardEntries, log);
    await sandbox.reset();
    await redis.config('RESETSTAT');
    const redisPid = await redisServerPid(redis);
    const env = productEnv(prefix, { WHATSAPP_API_URL: sandbox.url, SEND_RATE: '0', LOG_LEVEL: 'warn' });
    worker = startChild('campaign worker (probe)', process.execPath, [CAMPAIGN_BIN, 'worker'], env, ROOT);
    const pids = { worker: worker.pid, sandbox: sandbox.child.pid, redis: redisPid };
    // Timed from the first send to the last, CPU over the same span.
    while ((await sandbox.stats()).accepted === 0) await sleep(50);
    const start = { at: performance.now(), accepted: (await sandbox.stats()).accepted, cpu: cpuOf(pids) };
    let accepted = start.accepted;
    while (accepted < rows) {
      await sleep(200);
      accepted = (await sandbox.stats()).accepted;
    }
    const seconds = (performance.now() - start.at) / 1000;
    const cpu = cpuOf(pids);
    const sent = accepted - start.accepted;
    const micros = (who: keyof typeof cpu) => (((cpu[who] ?? Number.NaN) - (start.cpu[who] ?? Number.NaN)) * 1e6) / sent;
    const result: RedisPhase = {
      label: run.guardEntries === 0 ? 'fresh guard and index' : `guard and index holding ${run.guardEntries}`,
      guardEntries: run.guardEntries,
      msgPerSecond: sent / seconds,
      cpuMicros: { worker: micros('worker'), sandbox: micros('sandbox'), redis: micros('redis') },
      usecPerCall: await usecPerCall(redis),
    };
    const { worker: w, sandbox: s, redis: r } = result.cpuMicros;
    const perCall = Object.entries(result.usecPerCall).map(([c, u]) => `${c} ${u.toFixed(2)}`);
    const redisShare = coreShare(start.cpu.redis, cpu.redis, seconds * 1000)?.toFixed(2) ?? '?';
    log(
      `  redis phase (${result.label}): ${result.msgPerSecond.toFixed(0)} msg/s; CPU µs/msg worker ${w.toFixed(0)}, ` +
        `sandbox ${s.toFixed(0)}, redis ${r.toFixed(0)}; µs/call ${perCall.join(', ')}; redis-server ${redisShare} of a core`,
    );
    return result;
  } finally {
    if (worker !== undefined) await stopChild(worker);
    await sandbox.stop();
    await deletePrefix(redis, prefix);
  }
}

async function prefill(redis: Redis, prefix: string, campaignId: string, entries: number, log: (line: string) => void): Promise<void> {
  const guard = sentGuardKeys(prefix, PHONE_NUMBER_ID);
  const keys = [guard.sent, wamidsKey(prefix, PHONE_NUMBER_ID)];
  const started = performance.now();
  const [seconds] = await redis.time();
  const now = Number(seconds) * 1000;
  for (let from = 0; from < entries; from += PREFILL_CHUNK) {
    const n = Math.min(PREFILL_CHUNK, entries - from);
    // Row numbers past the campaign's own, so no prefilled entry names a row it will send.
    await redis.eval(PREFILL_LUA, keys.length, ...keys, String(10_000_000_000 + from), String(n), campaignId, String(now));
  }
  log(`  prefilled ${entries} entries into each of ${keys.join(', ')} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

function cpuOf(pids: { worker: number; sandbox: number; redis: number | undefined }) {
  return { worker: cpuSeconds(pids.worker), sandbox: cpuSeconds(pids.sandbox), redis: cpuSeconds(pids.redis) };
}

async function usecPerCall(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info('commandstats');
  const out: Record<string, number> = {};
  for (const command of COMMANDS) {
    const match = new RegExp(`^cmdstat_${command}:calls=(\\d+),usec=(\\d+),usec_per_call=([\\d.]+)`, 'm').exec(info);
    if (match?.[3] !== undefined) out[command] = Number(match[3]);
  }
  return out;
}
