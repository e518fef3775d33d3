/**
 * `npm run bench`: measures ingest, drain and rate, each beside a bare baseline measured in
 * the same invocation, and the feeder's 1M-row figures, each beside the figure measured with
 * one BullMQ job per row written at ingest (the design the feeder replaced); prints a table (stdout) plus the same as JSON
 * in bench/out/latest.json. Progress goes to stderr. Exits 0 when a target is missed (this
 * reports, it is not a test); exits 1 only when a measurement could not be made.
 *
 *   npm run bench -- [--runs N]
 *                    [--only ingest|drain|e2e|rate|feeder|webhooks|metrics|scale|toptier|soak|settled|kept|capacity|startup|audience[,...]]
 *                    [--rows N] [--e2e-rows N] [--feeder-rows N] [--soak-rows N] [--settled-rows N] [--audience-rows N]
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AUDIENCE_ROWS, benchAudience } from './audience.js';
import { benchCapacity } from './capacity.js';
import { benchDrain } from './drain.js';
import { E2E_ROWS, benchE2e } from './e2e.js';
import { FEEDER_ROWS, benchFeeder } from './feeder.js';
import { benchIngest } from './ingest.js';
import { benchKept } from './kept.js';
import { benchMetrics } from './metrics.js';
import { benchRate } from './rate.js';
import { SCALE_NUMBERS, benchScale, benchTopTier } from './scale.js';
import { SETTLED_ROWS, benchSettled } from './settled.js';
import { benchStartup } from './startup.js';
import { SOAK_ROWS, benchSoak } from './soak.js';
import { benchWebhooks } from './webhooks.js';
import { killAllChildrenNow, stopAllChildren } from './support/children.js';
import { OUT_DIR } from './support/data.js';
import { renderTable, type SectionError, type SectionResult } from './support/figures.js';
import { ROOT } from './support/product.js';
import { deletePendingPrefixes, openRedis, redisServerPid, redisVersion } from './support/redis.js';
import { PACING_RECEIVER_NODE_FLAGS, startSandboxChild, type SandboxChild } from './support/sandbox.js';

const SECTIONS = [
  'ingest',
  'drain',
  'e2e',
  'rate',
  'feeder',
  'webhooks',
  'metrics',
  'scale',
  'toptier',
  'soak',
  'settled',
  'kept',
  'capacity',
  'startup',
  'audience',
] as const;
/**
 * Run only when asked for with --only: the soak takes most of an hour at its default size, the settled
 * rows minutes, kept a redis-server of its own a run, capacity a cluster of its own, and the audience section (1,000,000 rows imported
 * and ingested 3 times) took 293 s on the shared 2 cores at load 7 (about 2 minutes by the speed probe
 * on an idle machine).
 */
const ON_REQUEST: readonly string[] = ['soak', 'settled', 'kept', 'capacity', 'audience'];
type Section = (typeof SECTIONS)[number];

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    rows: { type: 'string', default: '100000' },
    'e2e-rows': { type: 'string', default: String(E2E_ROWS) },
    'feeder-rows': { type: 'string', default: String(FEEDER_ROWS) },
    'soak-rows': { type: 'string', default: String(SOAK_ROWS) },
    'settled-rows': { type: 'string', default: String(SETTLED_ROWS) },
    'audience-rows': { type: 'string', default: String(AUDIENCE_ROWS) },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    `npm run bench -- [--runs N] [--only ${SECTIONS.join('|')}[,...]] ` +
      '[--rows N (ingest rows, default 100000)] ' +
      `[--e2e-rows N (e2e's campaign, default ${E2E_ROWS})] ` +
      `[--feeder-rows N (the feeder's campaign, default ${FEEDER_ROWS}; RSS is also measured at N/10)] ` +
      `[--soak-rows N (soak, only with --only soak; default ${SOAK_ROWS})] ` +
      `[--settled-rows N (settled, only with --only settled; default ${SETTLED_ROWS})] ` +
      '[--audience-rows N (audience, only with --only audience: the import beside a campaign ingest of the same file; ' +
      `default ${AUDIENCE_ROWS})]`,
  );
  process.exit(0);
}
const runs = Number(values.runs);
const rows = Number(values.rows);
const e2eRows = Number(values['e2e-rows']);
const feederRows = Number(values['feeder-rows']);
const soakRows = Number(values['soak-rows']);
const settledRows = Number(values['settled-rows']);
const audienceRows = Number(values['audience-rows']);
const only = (values.only ?? SECTIONS.filter((s) => !ON_REQUEST.includes(s)).join(',')).split(',').map((s) => s.trim());
if (
  !Number.isInteger(runs) ||
  runs < 1 ||
  !Number.isInteger(rows) ||
  rows < 1 ||
  !Number.isInteger(e2eRows) ||
  e2eRows < 1 ||
  !Number.isInteger(feederRows) ||
  feederRows < 10 ||
  !Number.isInteger(soakRows) ||
  soakRows < 1000 ||
  !Number.isInteger(settledRows) ||
  settledRows < 1 ||
  !Number.isInteger(audienceRows) ||
  audienceRows < 1 ||
  only.some((s) => !SECTIONS.includes(s as Section))
) {
  console.error(
    `usage: npm run bench -- [--runs N>=1] [--only ${SECTIONS.join('|')}[,...]] ` +
      '[--rows N>=1] [--e2e-rows N>=1] [--feeder-rows N>=10] [--soak-rows N>=1000] [--settled-rows N>=1] [--audience-rows N>=1]',
  );
  process.exit(2);
}
const selected = SECTIONS.filter((s) => only.includes(s));

const redis = openRedis();
redis.on('error', (error) => console.error(`redis: ${error.message}`));
let sandbox: SandboxChild | undefined;
/** The receiver of the sections that measure pacing: one whose garbage collections pause it briefly (see PACING_RECEIVER_NODE_FLAGS). */
let pacingSandbox: SandboxChild | undefined;
const startPacingSandbox = () => startSandboxChild(undefined, SCALE_NUMBERS, [], PACING_RECEIVER_NODE_FLAGS);

/** Stops every child by its PID and deletes every prefix this run created, whatever happened. */
let cleaning: Promise<void> | undefined;
const cleanUp = () =>
  (cleaning ??= (async () => {
    await stopAllChildren();
    await deletePendingPrefixes(redis).catch((error: unknown) => console.error(`cleanup: ${String(error)}`));
    await redis.quit().catch(() => redis.disconnect());
  })());
/** Set on Ctrl-C/SIGTERM: a section failing because its children were stopped is not a result. */
let interrupted = false;
const onSignal = (signal: NodeJS.Signals) => {
  interrupted = true;
  console.error(`\n${signal}: stopping the benchmark's child processes and deleting its keys`);
  void cleanUp().finally(() => process.exit(130));
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
process.on('exit', killAllChildrenNow);

const startedAt = new Date();
const loadBefore = loadavg();
const codeBefore = gitDescription();
const results: SectionResult[] = [];
const errors: SectionError[] = [];
try {
  const redisPid = await redisServerPid(redis);
  console.error(
    `campaign-worker benchmark: ${selected.join(', ')}; ${runs} run(s) each; medians beside a bare ` +
      `baseline (feeder: beside the figures of one job per row at ingest)`,
  );
  for (const section of selected) {
    console.error(`${section}:`);
    try {
      if (section === 'ingest') {
        results.push(await benchIngest({ runs, rows, redis, redisPid }));
      } else if (section === 'webhooks') {
        results.push(await benchWebhooks({ runs, redis }));
      } else if (section === 'metrics') {
        results.push(await benchMetrics({ runs }));
      } else if (section === 'startup') {
        results.push(await benchStartup({ runs, redis }));
      } else if (section === 'capacity') {
        results.push(await benchCapacity({ runs }));
      } else if (section === 'soak') {
        results.push(await benchSoak({ rows: soakRows, redis, redisPid }));
      } else if (section === 'audience') {
        results.push(await benchAudience({ runs, rows: audienceRows, redis, redisPid }));
      } else if (section === 'settled') {
        results.push(await benchSettled({ rows: settledRows, redis }));
      } else if (section === 'kept') {
        results.push(await benchKept({ runs }));
      } else if (section === 'scale' || section === 'toptier') {
        pacingSandbox ??= await startPacingSandbox();
        const options = { runs, redis, sandbox: pacingSandbox };
        results.push(section === 'scale' ? await benchScale(options) : await benchTopTier(options));
      } else if (section === 'rate') {
        pacingSandbox ??= await startPacingSandbox();
        results.push(await benchRate({ runs, redis, sandbox: pacingSandbox }));
      } else {
        sandbox ??= await startSandboxChild(undefined, SCALE_NUMBERS);
        results.push(
          section === 'drain'
            ? await benchDrain({ runs, redis, redisPid, sandbox })
            : section === 'e2e'
              ? await benchE2e({ runs, rows: e2eRows, redis, redisPid, sandbox })
              : await benchFeeder({ runs, rows: feederRows, redis, redisPid, sandbox }),
        );
      }
    } catch (error) {
      if (interrupted) break;
      console.error(error);
      errors.push({ section, error: error instanceof Error ? error.message : String(error) });
    }
  }
  await sandbox?.stop();
  await pacingSandbox?.stop();
  // Interrupted: cleanUp() is running and exits with 130; print and write nothing half-measured.
  if (interrupted) await new Promise<never>(() => undefined);

  const environment = {
    startedAt: startedAt.toISOString(),
    durationSeconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
    node: process.version,
    redis: await redisVersion(redis),
    cpus: cpus().length,
    loadAverageBefore: loadBefore.map((l) => Number(l.toFixed(2))),
    loadAverageAfter: loadavg().map((l) => Number(l.toFixed(2))),
    git: codeBefore,
    /** Set when the product's code changed while the benchmark ran: the figures then mix two versions. */
    codeChangedDuringRun: gitDescription() !== codeBefore,
    runs,
    /** The sandbox's scheduling priority: it stands for Meta's servers (see raisePriority in bench/support/sandbox.ts). */
    receiver:
      [...new Set([sandbox, pacingSandbox].flatMap((s) => (s === undefined ? [] : [s.receiverPriority])))].join(' | ') || 'no sandbox',
  };
  console.log(
    `campaign-worker benchmark, ${environment.startedAt}, node ${environment.node}, redis ` +
      `${environment.redis}, ${environment.cpus} CPUs, ` +
      `load ${environment.loadAverageBefore.join('/')} → ${environment.loadAverageAfter.join('/')}, ` +
      `${environment.git}, ${runs} run(s) per figure, receiver (sandbox) at ${environment.receiver}\n`,
  );
  if (environment.codeChangedDuringRun) {
    console.log('WARNING: the code under src/, workers/ or bin/ changed while the benchmark ran; the figures may mix versions.\n');
  }
  console.log(renderTable(results, errors));
  console.log('\nHow:');
  for (const result of results) for (const line of result.method) console.log(`  - ${line}`);
  console.log('Notes:');
  for (const result of results) for (const line of result.notes) console.log(`  - ${line}`);
  const missed = results.flatMap((r) => r.figures).filter((f) => f.missed.length > 0);
  const missedText = missed.length > 0 ? `MISSED: ${missed.map((f) => f.label).join('; ')}. ` : '';
  const errorsText = errors.length > 0 ? `ERRORS in: ${errors.map((e) => e.section).join(', ')}.` : '';
  console.log(missed.length === 0 && errors.length === 0 ? '\nAll targets hold.' : `\n${missedText}${errorsText}`);

  mkdirSync(OUT_DIR, { recursive: true });
  const jsonPath = join(OUT_DIR, 'latest.json');
  writeFileSync(jsonPath, `${JSON.stringify({ environment, results, errors }, null, 2)}\n`);
  console.log(`JSON: ${jsonPath}`);
  process.exitCode = errors.length > 0 ? 1 : 0;
} finally {
  await cleanUp();
}

/**
 * Which code was measured. Others edit the tree while benchmarks run, so "HEAD" is not
 * enough: a fingerprint of the uncommitted state of the product's code (src, workers, bin,
 * tracked diff and untracked files) tells two runs of different code apart.
 */
function gitDescription(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const head = git('rev-parse', '--short', 'HEAD').trim();
    const paths = ['src', 'workers', 'bin'];
    const hash = createHash('sha256').update(git('diff', 'HEAD', '--', ...paths));
    for (const file of git('ls-files', '--others', '--exclude-standard', '--', ...paths)
      .split('\n')
      .filter((f) => f !== '')) {
      hash.update(file).update(readFileSync(join(ROOT, file)));
    }
    const dirty = git('status', '--porcelain', '--', ...paths).trim() !== '';
    return `git ${head}${dirty ? ` + uncommitted changes in src/workers/bin (fingerprint ${hash.digest('hex').slice(0, 10)})` : ''}`;
  } catch {
    return 'git unknown';
  }
}
