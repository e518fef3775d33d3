/**
 * Why a long soak slows down, one suspect at a time, in minutes rather than the soak's hour:
 *
 *   node --import tsx bench/soak-probe.ts [--part sandbox|redis|all] [--sends N] [--rows N] [--prefill N]
 *     [--sandbox-prefill N] [--accounting digests|strings]
 *
 * sandbox  the sandbox's own cost per accepted send, tenth by tenth over `--sends` sends
 *          (default 10,000,000): CPU per send and GC pauses (bench/soak-probe-sandbox.ts).
 *          `--sandbox-prefill N` first records N other sends in its duplicate accounting, so
 *          `--sends 500000 --sandbox-prefill 10000000` measures the last tenth of a 10M soak
 *          in minutes; `--accounting strings` measures the Set of strings it replaced.
 * redis    `--rows` rows (default 300,000) sent as the soak sends them, with the number's
 *          duplicate guard and message-ID index fresh, then holding `--prefill` entries each
 *          (default 10,000,000), then fresh again (bench/soak-probe-redis.ts). It writes
 *          gigabytes: point REDIS_URL at a Redis of its own; it refuses the default 6379.
 *
 * The redis part runs the built CLI: `npm run build` first.
 */
import { parseArgs } from 'node:util';
import { probeRedis } from './soak-probe-redis.js';
import { probeSandbox } from './soak-probe-sandbox.js';
import { REDIS_URL, openRedis } from './support/redis.js';

const USAGE =
  'node --import tsx bench/soak-probe.ts [--part sandbox|redis|all] [--sends N] [--rows N] [--prefill N] ' +
  '[--sandbox-prefill N] [--accounting digests|strings]';
const { values } = parseArgs({
  options: {
    part: { type: 'string', default: 'all' },
    sends: { type: 'string', default: '10000000' },
    rows: { type: 'string', default: '300000' },
    prefill: { type: 'string', default: '10000000' },
    'sandbox-prefill': { type: 'string', default: '0' },
    accounting: { type: 'string', default: 'digests' },
  },
});
const part = values.part;
const sends = Number(values.sends);
const rows = Number(values.rows);
const prefill = Number(values.prefill);
const sandboxPrefill = Number(values['sandbox-prefill']);
const accounting = values.accounting;
const counts = [sends, rows, prefill, sandboxPrefill + 1];
if (!['sandbox', 'redis', 'all'].includes(part) || !counts.every((n) => Number.isInteger(n) && n > 0) || !isAccounting(accounting)) {
  console.error(`usage: ${USAGE}`);
  process.exit(2);
}
const log = (line: string) => console.log(line);

function isAccounting(value: string): value is 'digests' | 'strings' {
  return value === 'digests' || value === 'strings';
}

console.log(`load average at start: ${await loadAverage()}`);
if (part === 'sandbox' || part === 'all') {
  const tenths = await probeSandbox({ sends, prefill: sandboxPrefill, accounting }, log);
  const first = tenths[0];
  const last = tenths.at(-1);
  if (first !== undefined && last !== undefined) {
    log(`sandbox: CPU per send, last tenth / first: ${(last.microsPerSend / first.microsPerSend).toFixed(2)}×`);
  }
}
if (part === 'redis' || part === 'all') {
  if (/:6379(\/|$)/.test(REDIS_URL) || !/:\d+/.test(REDIS_URL)) {
    console.error(`the redis part writes gigabytes: set REDIS_URL to a Redis of its own (not ${REDIS_URL})`);
    process.exit(2);
  }
  const redis = openRedis();
  try {
    await probeRedis({ rows, prefill, redis }, log);
  } finally {
    redis.disconnect();
  }
}
console.log(`load average at end: ${await loadAverage()}`);

async function loadAverage(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return (await readFile('/proc/loadavg', 'utf8')).trim();
}
