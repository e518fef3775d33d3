import { readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, runBatch, type CommandRun } from '../support/command-runs.js';
import { FaultHarness, type SendSummary } from '../support/fault-harness.js';
import { parseReport } from '../support/fault-report.js';
import { phoneNumber } from '../support/csv-files.js';
import { startIngestLoad, type IngestLoad } from '../support/ingest-load.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';

/**
 * Short commands always end, and soon, on a busy machine: `report --out`, `status` and `list`
 * on completed campaigns, run four at a time as child processes of the built CLI, while a
 * `campaign worker` drains a campaign to the sandbox and `campaign send` ingests file after
 * file. Each run must exit 0 with the right output within RUN_LIMIT_MS.
 *
 * How many runs: CLI_STRESS_RUNS. `npm run test:stress`, the long tier, makes 500 unless told
 * otherwise; CI makes 50 (.ci/run: its time on a slow 2-core machine allows no more); a plain
 * `vitest run` of every project makes DEFAULT_RUNS.
 */

const DEFAULT_RUNS = 200;
const RUNS = runsOf(process.env.CLI_STRESS_RUNS);
const CONCURRENCY = 4;
const RUN_LIMIT_MS = 10_000;
/**
 * No run starts after this long: about 4 min on an idle 2-core machine (a run costs a quarter
 * of a CPU second), about 8 min on one whose host gives it half its usual speed (986 runs in
 * 480 s seen at a load of 8); a machine too busy even for this fails with how far it got, not a
 * timeout.
 */
const BUDGET_MS = 600_000;
/** A run still alive after this is killed and reported as a hang (the limit above already failed it). */
const KILL_AFTER_MS = 60_000;
const SMALL_ROWS = 7;
const COMPLETED_CAMPAIGNS = 3;
/** The worker's pace and the drained campaign's size: far more rows than the test lasts. */
const SEND_RATE = 20;
const DRAIN_ROWS = 30_000;
const INGEST_ROWS = 1_000;

const SEND_ARGS = ['--template', 'order_update', '--language', 'en_US', '--params', 'first_name,order_id', '--templates', SAMPLE_TEMPLATES];

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** A campaign CSV of `count` rows whose phones start after the `from`-th (distinct files never share a recipient). */
async function writeRows(path: string, from: number, count: number): Promise<string> {
  const lines = ['phone,first_name,order_id'];
  for (let i = from + 1; i <= from + count; i++) lines.push(`${phoneNumber(i)},Name${i},A-${i}`);
  await writeFile(path, lines.join('\n') + '\n');
  return path;
}

describe('one-shot commands under load', () => {
  let harness: FaultHarness;
  let ingest: IngestLoad | undefined;
  const completed: string[] = [];

  beforeAll(async () => {
    harness = await FaultHarness.start({ label: 'cli-stress', rows: SMALL_ROWS, sendRate: SEND_RATE, sandboxMps: 0 });
    await harness.startWorker();
    const send = async (file: string): Promise<SendSummary> =>
      JSON.parse((await harness.cli(['send', file, ...SEND_ARGS, '--json'])).stdout) as SendSummary;
    for (let k = 0; k < COMPLETED_CAMPAIGNS; k++) {
      const { id } = await send(await writeRows(join(harness.dir, `small-${k}.csv`), k * 100, SMALL_ROWS));
      await harness.waitForCompletion(id, 120_000);
      completed.push(id);
    }
    await send(await writeRows(join(harness.dir, 'drain.csv'), 100_000, DRAIN_ROWS));
    const ingestFile = await writeRows(join(harness.dir, 'ingest.csv'), 200_000, INGEST_ROWS);
    ingest = startIngestLoad(ingestFile, [...SEND_ARGS, '--json'], harness.env, `${harness.prefix}-ingest`);
  }, 300_000);

  afterAll(async () => {
    await ingest?.stop();
    await harness?.close();
  }, 120_000);

  const title = `${RUNS} runs of report, status and list, ${CONCURRENCY} at a time: each exits 0, right, within ${RUN_LIMIT_MS / 1000} s`;
  it(
    title,
    async () => {
      const started = performance.now();
      const elapsed = () => ((performance.now() - started) / 1000).toFixed(1);
      let slowest = 0;
      const sentBefore = harness.accepted().length;
      const runs = await runBatch({
        runs: RUNS,
        concurrency: CONCURRENCY,
        env: harness.env,
        killAfterMs: KILL_AFTER_MS,
        budgetMs: BUDGET_MS,
        fails: (run) => run.code !== 0 || run.timedOut || run.wrong !== undefined || run.ms > RUN_LIMIT_MS,
        command: (n) => commandFor(n, completed, harness.dir),
        onRun: (run, n) => {
          slowest = Math.max(slowest, run.ms);
          if ((n + 1) % 100 === 0)
            console.info(`cli-stress: run ${n + 1} ended by ${elapsed()} s; slowest so far ${(slowest / 1000).toFixed(2)} s`);
        },
      });
      const slowestRun = runs.reduce((a, b) => (b.ms > a.ms ? b : a));
      console.info(
        `cli-stress: ${runs.length} runs in ${elapsed()} s; slowest ${describeRun(slowestRun)}; ` +
          `worker sent ${harness.accepted().length - sentBefore} meanwhile; ${ingest?.rounds()} ingests of ${INGEST_ROWS} rows; ` +
          `loadavg ${load()}`,
      );

      const bad = runs.filter((run) => run.code !== 0 || run.timedOut || run.wrong !== undefined || run.ms > RUN_LIMIT_MS);
      expect(bad.map(describeRun).slice(0, 20), `${bad.length} of ${runs.length} runs failed or were slow`).toEqual([]);
      expect(runs.length, `only ${runs.length} of ${RUNS} runs started within ${BUDGET_MS / 1000} s (loadavg ${load()})`).toBe(RUNS);
      // The load was there: the worker drained and ingest ran throughout.
      expect(ingest?.failures()).toEqual([]);
      expect(ingest?.rounds()).toBeGreaterThan(0);
      expect(harness.accepted().length - sentBefore).toBeGreaterThan(0);
    },
    BUDGET_MS + KILL_AFTER_MS + 60_000,
  );
});

/** The n-th run: report, status and list in turn, over the completed campaigns. */
function commandFor(n: number, ids: readonly string[], dir: string) {
  const id = ids[Math.floor(n / 3) % ids.length] ?? '';
  if (n % 3 === 0) {
    const out = join(dir, `report-${n}.csv`);
    return {
      args: ['report', id, '--out', out],
      check: async () => {
        const rows = parseReport(await readFile(out, 'utf8').catch(() => ''));
        await rm(out, { force: true });
        const sent = rows.filter((r) => r.status === 'sent').length;
        return rows.length === SMALL_ROWS && sent === SMALL_ROWS ? undefined : `report has ${rows.length} rows, ${sent} sent`;
      },
    };
  }
  if (n % 3 === 1) {
    return {
      args: ['status', id],
      check: (run: Pick<CommandRun, 'stdout'>) =>
        new RegExp(`${id}.*: completed\\n[^]*total ${SMALL_ROWS} .* sent ${SMALL_ROWS} `).test(run.stdout)
          ? undefined
          : `status does not show ${id} completed with ${SMALL_ROWS} sent: ${run.stdout.slice(0, 300)}`,
    };
  }
  return {
    args: ['list'],
    check: (run: Pick<CommandRun, 'stdout'>) => {
      const missing = ids.filter((each) => !new RegExp(`${each}.*: completed`).test(run.stdout));
      return missing.length === 0 ? undefined : `list does not show ${missing.join(', ')} completed`;
    },
  };
}

/** CLI_STRESS_RUNS as a count of runs; DEFAULT_RUNS when unset; anything but a whole number from 1 is refused. */
function runsOf(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_RUNS;
  const runs = Number(value);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`CLI_STRESS_RUNS must be a whole number of runs from 1, got "${value}"`);
  return runs;
}
