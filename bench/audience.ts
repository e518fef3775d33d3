import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { ConsentEntry } from '../src/consent/consent-entry.js';
import { runToExit, startChild } from './support/children.js';
import { coreShare, cpuSeconds, speedProbeMs } from './support/cpu.js';
import { OUT_DIR, audiencePhone, ensureAudienceCsv } from './support/data.js';
import { figure, fmt, type SectionResult } from './support/figures.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, parseSendSummary, productEnv, sendArgs } from './support/product.js';
import { REDIS_URL, deletePrefix, freshPrefix } from './support/redis.js';
import { median, medianOf } from './support/stats.js';
import { pct } from './ingest.js';

/**
 * (a) `importAudience` (in this process, as the API and the CLI call it) of N generated rows,
 * phone and five attributes, beside `campaign send` of the same file with no worker running,
 * timed as the ingest section times it (a child process, spawn → exit). Order alternates
 * between runs. (b) Redis per contact: used_memory before and after importing 100,000 contacts
 * into an empty prefix, with MEMORY USAGE of the prefix's keys as a cross-check that others'
 * writes on the shared Redis cannot move; beside it the same for `campaign send` of that file.
 * On request only (`--only audience`): 1,000,000 rows × 2 × 3 runs took 293 s on the shared 2 cores at load 7.
 */
export const AUDIENCE_ROWS = 1_000_000;
const MEMORY_CONTACTS = 100_000;
const PORTFOLIO = 'bench';
const AUDIENCE = 'bench-audience';
const TARGET_RATIO = 0.8;
const TARGET_BYTES = 300;
/** A 1M-row send took 15–70 s here (idle to loaded); far more than that means something is stuck. */
const SEND_TIMEOUT_MS = 600_000;

/** The product's modules, loaded when the section runs: the other sections do not depend on the audience code. */
async function loadProduct() {
  const [{ importAudience }, { openContext }, { consentStore }, { audienceKeys }, { consentKeys }] = await Promise.all([
    import('../src/app/audiences.js'),
    import('../src/app/app-context.js'),
    import('../src/app/audiences-context.js'),
    import('../src/redis/audiences/audience-keys.js'),
    import('../src/redis/consent/consent-keys.js'),
  ]);
  return { importAudience, openContext, consentStore, audienceKeys, consentKeys };
}
type Product = Awaited<ReturnType<typeof loadProduct>>;

interface Rig {
  redis: Redis;
  redisPid: number | undefined;
  product: Product;
  tmp: string;
}

interface SpeedRun {
  side: 'import' | 'ingest';
  rows: number;
  wallMs: number;
  rowsPerSecond: number;
  redisCores: number | undefined;
  /** This process's CPU over the import (the ingest's child is not measured). */
  processCores: number | undefined;
  probeMs: number;
}

interface MemoryRun {
  side: 'import' | 'ingest';
  /** used_memory after − before, per contact (import) or per row (ingest). */
  usedPerContact: number;
  /** MEMORY USAGE … SAMPLES 0 summed over the run's prefix, per contact or row. */
  prefixPerContact: number;
  contactsHashPerContact?: number;
  consentUsedPerPerson?: number;
  consentPerPerson?: number;
}

export async function benchAudience(options: {
  runs: number;
  rows: number;
  redis: Redis;
  redisPid: number | undefined;
}): Promise<SectionResult> {
  const product = await loadProduct();
  const tmp = join(OUT_DIR, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const rig: Rig = { redis: options.redis, redisPid: options.redisPid, product, tmp };
  const [file, memoryFile] = [await ensureAudienceCsv(options.rows), await ensureAudienceCsv(MEMORY_CONTACTS)];

  // Memory first: its imports also warm this process's import path (and tsx's cache), as the
  // start-up rounds warm the CLI's, so the first timed run pays for no compiling on either side.
  const startupSeconds = await measureStartup(options.runs);
  const memory: MemoryRun[] = [];
  for (let i = 0; i < options.runs; i++) {
    for (const side of alternate(i)) {
      const run = side === 'import' ? await importMemory(rig, memoryFile) : await ingestMemory(rig, memoryFile);
      memory.push(run);
      console.error(
        `  audience memory run ${i + 1}/${options.runs} ${side}: used_memory Δ ${fmt(run.usedPerContact)} B, ` +
          `prefix keys ${fmt(run.prefixPerContact)} B a ${side === 'import' ? 'contact' : 'row'}`,
      );
    }
  }
  const speed: SpeedRun[] = [];
  for (let i = 0; i < options.runs; i++) {
    for (const side of alternate(i)) {
      const run = side === 'import' ? await timeImport(rig, file, options.rows) : await timeIngest(rig, file, options.rows);
      speed.push(run);
      console.error(
        `  audience run ${i + 1}/${options.runs} ${side}: ${fmt(run.rowsPerSecond)} rows/s (${(run.wallMs / 1000).toFixed(2)} s), ` +
          `redis ${pct(run.redisCores)} of a core, probe ${Math.round(run.probeMs)} ms`,
      );
    }
  }
  return audienceResult(speed, memory, startupSeconds, options);
}

const alternate = (i: number): ('import' | 'ingest')[] => (i % 2 === 0 ? ['import', 'ingest'] : ['ingest', 'import']);

async function openProductContext(rig: Rig, prefix: string) {
  return rig.product.openContext([], { QUEUE_PREFIX: prefix, REDIS_URL, WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID, LOG_LEVEL: 'warn' });
}

/** importAudience of the whole file into a fresh prefix, timed from the call to its answer; the prefix is deleted after. */
async function timeImport(rig: Rig, file: string, rows: number): Promise<SpeedRun> {
  const prefix = freshPrefix('audience-import');
  const rejectsFile = join(rig.tmp, `${prefix}.rejects.csv`);
  const context = await openProductContext(rig, prefix);
  try {
    const probeMs = speedProbeMs();
    const redisBefore = cpuSeconds(rig.redisPid);
    const cpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    const outcome = await rig.product.importAudience(context, { name: AUDIENCE, file, target: { portfolio: PORTFOLIO }, rejectsFile });
    const wallMs = performance.now() - startedAt;
    const cpu = process.cpuUsage(cpuBefore);
    if (outcome.contacts !== rows || outcome.rejected !== 0) {
      throw new Error(`audience import: ${outcome.contacts} contacts and ${outcome.rejected} rejected of ${rows} rows`);
    }
    return {
      side: 'import',
      rows,
      wallMs,
      rowsPerSecond: rows / (wallMs / 1000),
      redisCores: coreShare(redisBefore, cpuSeconds(rig.redisPid), wallMs),
      processCores: (cpu.user + cpu.system) / 1000 / wallMs,
      probeMs,
    };
  } finally {
    await context.close();
    rmSync(rejectsFile, { force: true });
    await deletePrefix(rig.redis, prefix);
  }
}

/** `campaign send FILE … --json` with no worker, spawn → exit, as bench/ingest.ts runs it; the prefix is deleted after. */
async function timeIngest(rig: Rig, file: string, rows: number): Promise<SpeedRun> {
  const prefix = freshPrefix('audience-ingest');
  try {
    const probeMs = speedProbeMs();
    const redisBefore = cpuSeconds(rig.redisPid);
    const child = startChild('campaign send', process.execPath, sendArgs(file), productEnv(prefix), ROOT);
    const exit = await runToExit(child, SEND_TIMEOUT_MS);
    const wallMs = exit.at - child.startedAt;
    const summary = parseSendSummary(child);
    if (summary.queued !== rows) throw new Error(`campaign send: queued ${summary.queued} of ${rows} rows`);
    return {
      side: 'ingest',
      rows,
      wallMs,
      rowsPerSecond: rows / (wallMs / 1000),
      redisCores: coreShare(redisBefore, cpuSeconds(rig.redisPid), wallMs),
      processCores: undefined,
      probeMs,
    };
  } finally {
    await deletePrefix(rig.redis, prefix);
  }
}

/**
 * 100,000 contacts imported into an empty prefix: used_memory before the connection opens and
 * after it closes, then the keys' own MEMORY USAGE; then one consent entry for each of them
 * (RedisConsent, as an import with --consent-column records them), measured the same way.
 */
async function importMemory(rig: Rig, file: string): Promise<MemoryRun> {
  const prefix = freshPrefix('audience-memory');
  const { product, redis } = rig;
  const rejectsFile = join(rig.tmp, `${prefix}.rejects.csv`);
  try {
    await lazyFreeDone(redis);
    const before = await usedMemory(redis);
    let context = await openProductContext(rig, prefix);
    const outcome = await product.importAudience(context, { name: AUDIENCE, file, target: { portfolio: PORTFOLIO }, rejectsFile });
    await context.close();
    const after = await usedMemory(redis);
    if (outcome.contacts !== MEMORY_CONTACTS) throw new Error(`audience import: ${outcome.contacts} of ${MEMORY_CONTACTS} contacts`);
    const prefixBytes = await prefixMemory(redis, prefix);
    const contactsBytes = await keyMemory(redis, product.audienceKeys(prefix, PORTFOLIO, AUDIENCE).contacts);

    const entries: ConsentEntry[] = Array.from({ length: MEMORY_CONTACTS }, (_, i) => ({
      phone: audiencePhone(i + 1),
      kind: 'opt-in',
      at: Date.now(),
      source: `audience ${AUDIENCE}, column consent`,
    }));
    const consentBefore = await usedMemory(redis);
    context = await openProductContext(rig, prefix);
    await product.consentStore(context).record(PORTFOLIO, entries);
    await context.close();
    const consentAfter = await usedMemory(redis);
    const keys = product.consentKeys(prefix, PORTFOLIO);
    const consentBytes = (await keyMemory(redis, keys.consent)) + (await keyMemory(redis, keys.sources));
    return {
      side: 'import',
      usedPerContact: (after - before) / MEMORY_CONTACTS,
      prefixPerContact: prefixBytes / MEMORY_CONTACTS,
      contactsHashPerContact: contactsBytes / MEMORY_CONTACTS,
      consentUsedPerPerson: (consentAfter - consentBefore) / MEMORY_CONTACTS,
      consentPerPerson: consentBytes / MEMORY_CONTACTS,
    };
  } finally {
    rmSync(rejectsFile, { force: true });
    await deletePrefix(redis, prefix);
  }
}

/** The same for `campaign send` of the same 100,000 rows (the ledger's pending rows). */
async function ingestMemory(rig: Rig, file: string): Promise<MemoryRun> {
  const prefix = freshPrefix('audience-memory-ingest');
  try {
    await lazyFreeDone(rig.redis);
    const before = await usedMemory(rig.redis);
    const child = startChild('campaign send', process.execPath, sendArgs(file), productEnv(prefix), ROOT);
    await runToExit(child, SEND_TIMEOUT_MS);
    const after = await usedMemory(rig.redis);
    const summary = parseSendSummary(child);
    if (summary.queued !== MEMORY_CONTACTS) throw new Error(`campaign send: queued ${summary.queued} of ${MEMORY_CONTACTS} rows`);
    return {
      side: 'ingest',
      usedPerContact: (after - before) / MEMORY_CONTACTS,
      prefixPerContact: (await prefixMemory(rig.redis, prefix)) / MEMORY_CONTACTS,
    };
  } finally {
    await deletePrefix(rig.redis, prefix);
  }
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? Number.NaN);
}

/** A previous run's UNLINKed keys are freed in the background: used_memory is read once that is done (or after 10 s). */
async function lazyFreeDone(redis: Redis): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (/^lazyfree_pending_objects:0\r?$/m.test(await redis.info('memory'))) return;
    await sleep(100);
  }
}

async function keyMemory(redis: Redis, key: string): Promise<number> {
  return Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) || 0;
}

/** MEMORY USAGE … SAMPLES 0 summed over `${prefix}:*` (exact, and blind to anyone else's keys). */
async function prefixMemory(redis: Redis, prefix: string): Promise<number> {
  let total = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 5000);
    cursor = next;
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    for (const [error, bytes] of (await pipeline.exec()) ?? []) if (error === null) total += Number(bytes) || 0;
  } while (cursor !== '0');
  return total;
}

/** `campaign --help`, spawn → exit, median of `runs` after one unrecorded round: the CLI start-up inside each ingest's wall time. */
async function measureStartup(runs: number): Promise<number> {
  const seconds: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const child = startChild('start-up campaign', process.execPath, [CAMPAIGN_BIN, '--help'], productEnv('bench-startup'), ROOT);
    const exit = await child.exited;
    if (i > 0) seconds.push((exit.at - child.startedAt) / 1000);
  }
  return median(seconds);
}

function audienceResult(
  speed: SpeedRun[],
  memory: MemoryRun[],
  startupSeconds: number,
  options: { rows: number; runs: number },
): SectionResult {
  const imports = speed.filter((r) => r.side === 'import');
  const ingests = speed.filter((r) => r.side === 'ingest');
  const importWall = median(imports.map((r) => r.wallMs)) / 1000;
  const ingestWall = median(ingests.map((r) => r.wallMs)) / 1000;
  return {
    section: 'audience',
    columns: { ours: 'audience', baseline: 'campaign', ratio: 'ratio' },
    figures: [
      figure({
        label: `audience import ${fmt(options.rows)} rows, 5 attributes`,
        unit: 'rows/s',
        ours: imports.map((r) => r.rowsPerSecond),
        baseline: ingests.map((r) => r.rowsPerSecond),
        baselineLabel: 'campaign send of the same file, spawn→exit',
        judgedOn: 'median',
        target: `>= ${TARGET_RATIO}x the campaign ingest`,
        check: (_, ratio) => (ratio >= TARGET_RATIO ? [] : [`< ${TARGET_RATIO}x the campaign ingest`]),
      }),
      ...memoryFigures(memory),
    ],
    runs: [...speed.map((r) => ({ ...r })), ...memory.map((r) => ({ ...r })), { startupSeconds }],
    notes: [
      'audience: machine speed probe before each run (ms, lower = faster): ' +
        `import [${imports.map((r) => Math.round(r.probeMs)).join(', ')}], ` +
        `ingest [${ingests.map((r) => Math.round(r.probeMs)).join(', ')}]`,
      `audience: median wall import ${importWall.toFixed(2)} s (this process ${pct(medianOf(imports, (r) => r.processCores))} of a core, ` +
        `redis ${pct(medianOf(imports, (r) => r.redisCores))}) | campaign send ${ingestWall.toFixed(2)} s (redis ` +
        `${pct(medianOf(ingests, (r) => r.redisCores))}), of which \`campaign --help\` start-up ${startupSeconds.toFixed(2)} s: ` +
        `with the ingest's start-up taken out the ratio would be ${((ingestWall - startupSeconds) / importWall).toFixed(2)}x`,
      `audience: consent store, used_memory Δ ${fmt(medianOf(memory, (r) => r.consentUsedPerPerson))} B a person (median)`,
    ],
    method: [
      `audience: importAudience(context, { name, file, target: { portfolio } }) in the benchmark's process (no CLI start-up), ` +
        `timed from the call to its answer, vs \`campaign send FILE … --json\` of the same ${fmt(options.rows)}-row file ` +
        '(phone,first_name,order_id,city,plan,signup_date) as a child (the built CLI, dist/), spawn→exit, no worker; ' +
        'order alternating, a fresh ' +
        `QUEUE_PREFIX per run, deleted after. Memory: ${fmt(MEMORY_CONTACTS)} contacts into an empty prefix, INFO used_memory before the ` +
        'connection opens and after it closes (once lazy frees are done), MEMORY USAGE … SAMPLES 0 of the keys as the ' +
        `cross-check; the baseline is \`campaign send\` of the same ${fmt(MEMORY_CONTACTS)} rows measured the same way.`,
    ],
  };
}

/** Redis per contact (judged) and its cross-checks: the prefix's keys, the contacts hash, and the consent store. */
function memoryFigures(memory: MemoryRun[]) {
  const importMemoryRuns = memory.filter((r) => r.side === 'import');
  const ingestMemoryRuns = memory.filter((r) => r.side === 'ingest');
  const contacts = fmt(MEMORY_CONTACTS);
  const bytes = (label: string, ours: number[], baseline: number[], unit = 'B/contact') =>
    figure({
      label,
      unit,
      ours,
      baseline,
      baselineLabel: baseline.length === 0 ? 'no baseline' : `campaign send, ${contacts} rows`,
      judgedOn: 'worst run',
      target: '',
      check: () => [],
      informational: true,
    });
  return [
    figure({
      label: `Redis per contact, 5 attributes (used_memory Δ, ${contacts})`,
      unit: 'B/contact',
      ours: importMemoryRuns.map((r) => r.usedPerContact),
      baseline: ingestMemoryRuns.map((r) => r.usedPerContact),
      baselineLabel: `campaign send of the same ${contacts} rows: used_memory Δ a pending row`,
      judgedOn: 'worst run',
      target: `≤ ${TARGET_BYTES} B`,
      check: (value) => (value <= TARGET_BYTES ? [] : [`more than ${TARGET_BYTES} B a contact`]),
    }),
    bytes(
      '  the prefix’s keys (MEMORY USAGE)',
      importMemoryRuns.map((r) => r.prefixPerContact),
      ingestMemoryRuns.map((r) => r.prefixPerContact),
    ),
    bytes(
      '  of which the contacts hash',
      importMemoryRuns.map((r) => r.contactsHashPerContact ?? Number.NaN),
      [],
    ),
    bytes(
      'consent store, 1 entry a person (MEMORY USAGE)',
      importMemoryRuns.map((r) => r.consentPerPerson ?? Number.NaN),
      [],
      'B/person',
    ),
  ];
}
