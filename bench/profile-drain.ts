/**
 * Where the worker's CPU goes: one drain of N rows (default 20,000) by `campaign worker`
 * under `node --cpu-prof`, SEND_RATE=0, against a `campaign sandbox --mps 0` child. Prints
 * self time by function and by area (BullMQ, ioredis, undici, our ledger, JSON, logging,
 * metrics, node internals, GC…) and the worker's CPU seconds per 1,000 messages.
 *
 *   node --import tsx bench/profile-drain.ts [ROWS] [OUT_DIR]
 *   node --import tsx bench/profile-drain.ts FILE.cpuprofile   (summarises a profile already taken)
 * PROFILE_BIN=path/to/bin/campaign.js profiles another build (a before/after pair in the same conditions).
 * PROFILE_RATE=N profiles paced sending instead: SEND_RATE=N, SEND_CONCURRENCY unset (the product's default).
 * The .cpuprofile file stays in OUT_DIR (default bench/out/profiles) for a closer look in
 * Chrome DevTools.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startChild, stopChild, stopAllChildren, waitForLine } from './support/children.js';
import { cpuSeconds } from './support/cpu.js';
import { OUT_DIR, ensureCsv } from './support/data.js';
import { CAMPAIGN_BIN, ROOT, campaignSend, productEnv } from './support/product.js';
import { deletePrefix, freshPrefix, openRedis } from './support/redis.js';
import { startSandboxChild } from './support/sandbox.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const rows = Number(process.argv[2] ?? '20000');
const dir = process.argv[3] ?? join(OUT_DIR, 'profiles');
mkdirSync(dir, { recursive: true });

/** The area a frame's time is charged to, from the module it runs in. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') {
    if (functionName === 'parse' || functionName === 'stringify') return 'JSON';
    if (functionName.startsWith('(')) return functionName;
    return 'V8 builtins';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (pkg !== undefined) return pkg;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] ?? ''}`;
  const ours = /\/(?:dist\/)?src\/([^/]+)\/(?:([^/]+)\/)?/.exec(url);
  if (ours !== null) return `ours: ${ours[1]}${ours[1] === 'campaigns' && ours[2] !== undefined ? `/${ours[2]}` : ''}`;
  return url;
}

/** Areas that do work on someone's behalf: their time is also shown charged to the package or module that called them. */
const isDelegate = (area: string) => area === 'JSON' || area === 'V8 builtins' || area.startsWith('node:');

function selfTimes(profile: CpuProfile): {
  byFunction: Map<string, number>;
  byArea: Map<string, number>;
  byCaller: Map<string, number>;
  total: number;
} {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  const callerArea = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const frame = nodes.get(at)?.callFrame;
      if (frame === undefined) break;
      const area = areaOf(frame.url, frame.functionName);
      if (!isDelegate(area)) return area;
    }
    return 'node internals (no caller)';
  };
  const byNode = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    byNode.set(id, (byNode.get(id) ?? 0) + dt);
  });
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  const byCaller = new Map<string, number>();
  for (const [id, us] of byNode) {
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === '(idle)') continue;
    total += us;
    const file = frame.url.replace(/^.*\/node_modules\//, '').replace(/^.*\/dist\//, '');
    const key = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const area = areaOf(frame.url, frame.functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
    const caller = callerArea(id);
    byCaller.set(caller, (byCaller.get(caller) ?? 0) + us);
  }
  return { byFunction, byArea, byCaller, total };
}

function top(map: Map<string, number>, total: number, n: number): string {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1e6).toFixed(2).padStart(6)} s  ${k}`)
    .join('\n');
}

function printProfile(path: string): void {
  const { byFunction, byArea, byCaller, total } = selfTimes(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile);
  console.log(`profile: ${path}; sampled (not idle) ${(total / 1e6).toFixed(2)} s`);
  console.log(`self time by area:\n${top(byArea, total, 20)}`);
  console.log(`self time by area, builtins/JSON/node internals charged to the module that called them:\n${top(byCaller, total, 15)}`);
  console.log(`self time by function:\n${top(byFunction, total, 30)}`);
}

async function profileDrain(): Promise<void> {
  const redis = openRedis();
  const prefix = freshPrefix('profile');
  const sandbox = await startSandboxChild();
  try {
    const file = await ensureCsv(rows);
    const summary = await campaignSend(file, prefix);
    const before = new Set(readdirSync(dir));
    const rate = process.env.PROFILE_RATE ?? '0';
    const env = productEnv(prefix, {
      WHATSAPP_API_URL: sandbox.url,
      SEND_RATE: rate,
      ...(rate === '0' ? { SEND_CONCURRENCY: '100' } : {}),
    });
    const args = ['--cpu-prof', '--cpu-prof-dir', dir, process.env.PROFILE_BIN ?? CAMPAIGN_BIN, 'worker'];
    const worker = startChild('campaign worker', process.execPath, args, env, ROOT);
    await waitForLine(worker, (l) => l.includes('"campaign completed"') && l.includes(summary.id), 600_000);
    const cpu = cpuSeconds(worker.pid) ?? Number.NaN;
    await stopChild(worker);
    const accepted = (await sandbox.acceptedTimes()).length;
    const written = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && !before.has(f));
    console.log(
      `accepted ${accepted} of ${rows}; worker CPU ${cpu.toFixed(2)} s (start-up included) = ` +
        `${((1000 * cpu) / accepted).toFixed(3)} s per 1,000 messages; load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    printProfile(join(dir, written[0] ?? ''));
  } finally {
    await stopAllChildren();
    await deletePrefix(redis, prefix);
    await redis.quit();
  }
}

// A .cpuprofile as the argument: only its summary, nothing run.
if (process.argv[2]?.endsWith('.cpuprofile') === true) printProfile(process.argv[2]);
else await profileDrain();
