import { ensureCsv } from './support/data.js';
import { figure, fmt, type Figure, type SectionResult } from './support/figures.js';
import { median } from './support/stats.js';
import { bareKeptRun, type BareKeptRun } from './kept/bare-run.js';
import { FAMILIES, type Census, type Family, type MemoryInfo } from './kept/census.js';
import { keptRun, type KeptRun } from './kept/product-run.js';

/**
 * Redis kept per settled row: what the whole Redis grows by (INFO memory used_memory, once
 * every row is settled and every status applied, minus before ingest) for one campaign sent
 * unpaced by one worker to the sandbox, which posts its status webhooks to `campaign serve`,
 * divided by the rows sent; then where those bytes are, by key family. Each run has a
 * redis-server of its own (a fresh one: nothing of an earlier run, and nobody else's keys).
 * Baseline: the same rows as plain BullMQ jobs with BullMQ's default options (every completed
 * job kept), drained by the bare worker.
 */
export const KEPT_ROWS = 50_000;
const TARGET_BYTES = 250;
const GUARD: Family = 'duplicate guard (sent)';
const LINKS: Family = 'user IDs (portfolio links, users)';
/** Patterns listed in the notes per run: the rest are summed in their family. */
const TOP_PATTERNS = 12;

export async function benchKept(options: { runs: number; rows?: number }): Promise<SectionResult> {
  const rows = options.rows ?? KEPT_ROWS;
  const file = await ensureCsv(rows);
  const ours: KeptRun[] = [];
  const bare: BareKeptRun[] = [];
  for (let i = 0; i < options.runs; i++) {
    const run = await keptRun(rows);
    ours.push(run);
    console.error(
      `  kept run ${i + 1}/${options.runs}: ${fmt(perRow(grown(run), run.settled.sent), 1)} B a settled row ` +
        `(${fmt(run.settled.sent)} sent, ${fmt(run.settled.delivered)} delivered, ${fmt(run.settled.read)} read, ` +
        `${fmt(run.seconds, 1)} s; load ${run.load.map((l) => fmt(l, 2)).join(' → ')})`,
    );
    console.error(`    ${familyText(run.census, run.settled.sent)}`);
    const base = await bareKeptRun(file, rows);
    bare.push(base);
    console.error(`  kept bare run ${i + 1}/${options.runs}: ${fmt(perRow(grown(base), base.rows), 1)} B a row`);
  }
  return {
    section: 'kept',
    columns: { ours: 'B/row', baseline: 'bare BullMQ', ratio: 'ratio' },
    figures: keptFigures(ours, bare),
    runs: [
      ...ours.map((r) => ({ side: 'ours', ...r, census: { ...r.census, patterns: r.census.patterns.slice(0, 40) } })),
      ...bare.map((r) => ({ side: 'bare', ...r, census: { ...r.census, patterns: r.census.patterns.slice(0, 40) } })),
    ],
    method: [
      `kept: per run a redis-server of its own (--save '' --appendonly no, stopped by its PID); \`campaign send\` of ${fmt(rows)} rows, ` +
        '`campaign serve`, `campaign sandbox --mps 0 --webhook-url <serve>/webhook` (signed sent and delivered for every message, ' +
        'read for half, as its defaults), one `campaign worker` at SEND_RATE=0; once the campaign is finished, every row delivered, ' +
        "the sandbox's share read, the webhook inbox consumed and nothing parked, every process stopped, then used_memory minus " +
        'used_memory before ingest, / rows sent. Breakdown: MEMORY USAGE … SAMPLES 0 of every key (SCAN), by name pattern ' +
        '(prefix, campaign, number and digit runs as placeholders), by family; "outside the keys": used_memory Δ minus their sum ' +
        "(INFO's used_memory_scripts_eval and the per-command statistics CONFIG RESETSTAT frees at the end apart; " +
        "the rest: the keyspace's tables, allocator rounding). Baseline: the same file as " +
        "one BullMQ job a row with BullMQ's default options (completed jobs kept), drained by bench/bare-worker.ts on a " +
        'redis-server of its own.',
    ],
    notes: notesOf(ours, bare),
  };
}

const grown = (run: { before: { usedMemory: number }; after: { usedMemory: number } }) => run.after.usedMemory - run.before.usedMemory;
const perRow = (bytes: number, rows: number) => bytes / rows;

function keptFigures(ours: readonly KeptRun[], bare: readonly BareKeptRun[]): Figure[] {
  const info = (label: string, mine: number[], theirs: number[]): Figure =>
    figure({
      label,
      unit: 'B/row',
      ours: mine,
      baseline: theirs,
      baselineLabel: 'bare BullMQ, completed jobs kept',
      judgedOn: 'median',
      target: '',
      check: () => [],
      digits: 1,
      informational: true,
    });
  const family = (f: Family) =>
    info(
      `  ${f}`,
      ours.map((r) => perRow(r.census.byFamily[f], r.settled.sent)),
      bare.map((r) => perRow(r.census.byFamily[f], r.rows)),
    );
  type Measured = { census: Census; before: MemoryInfo; after: MemoryInfo; commandStats: number };
  const scripts = (run: Measured) => run.after.scripts - run.before.scripts;
  const outside = (run: Measured, rows: number) => perRow(grown(run) - run.census.keyBytes - scripts(run) - run.commandStats, rows);
  const once = (run: Measured) => scripts(run) + run.commandStats;
  return [
    figure({
      label: 'Redis kept per settled row (used_memory Δ)',
      unit: 'B/row',
      ours: ours.map((r) => perRow(grown(r), r.settled.sent)),
      baseline: bare.map((r) => perRow(grown(r), r.rows)),
      baselineLabel: 'bare BullMQ, completed jobs kept',
      judgedOn: 'median',
      target: `≤ ${TARGET_BYTES} B`,
      check: (value) => (value <= TARGET_BYTES ? [] : [`more than ${TARGET_BYTES} B a row`]),
      digits: 1,
    }),
    // What a row keeps for RETENTION_DAYS alone: the guard goes after its 24 h, and the links are a user's, not a row's
    // (every row of this campaign is a new user). Their keys' share of the keyspace's own tables stays in.
    info(
      '  less the 24 h guard and the per-user links',
      ours.map((r) => perRow(grown(r) - r.census.byFamily[GUARD] - r.census.byFamily[LINKS], r.settled.sent)),
      bare.map((r) => perRow(grown(r), r.rows)),
    ),
    // What a Redis holds once, whatever the rows: the cached scripts and the per-command statistics of a fresh Redis.
    info(
      '  less what a Redis holds once (scripts, per-command statistics)',
      ours.map((r) => perRow(grown(r) - once(r), r.settled.sent)),
      bare.map((r) => perRow(grown(r) - once(r), r.rows)),
    ),
    ...FAMILIES.filter((f) => ours.some((r) => r.census.byFamily[f] > 0)).map(family),
    info(
      '  outside the keys: Lua scripts (once a Redis)',
      ours.map((r) => perRow(scripts(r), r.settled.sent)),
      bare.map((r) => perRow(scripts(r), r.rows)),
    ),
    info(
      "  outside the keys: Redis's per-command statistics (once a Redis)",
      ours.map((r) => perRow(r.commandStats, r.settled.sent)),
      bare.map((r) => perRow(r.commandStats, r.rows)),
    ),
    info(
      '  outside the keys: keyspace, rounding',
      ours.map((r) => outside(r, r.settled.sent)),
      bare.map((r) => outside(r, r.rows)),
    ),
  ];
}

function familyText(keys: Census, rows: number): string {
  return FAMILIES.filter((f) => keys.byFamily[f] > 0)
    .map((f) => `${f} ${fmt(perRow(keys.byFamily[f], rows), 1)}`)
    .join(', ');
}

function notesOf(ours: readonly KeptRun[], bare: readonly BareKeptRun[]): string[] {
  const notes: string[] = [];
  const m = (pick: (r: KeptRun) => number) => median(ours.map(pick));
  const overhead = m((r) => (r.after.overhead - r.before.overhead) / r.settled.sent);
  const scripts = m((r) => r.after.scripts - r.before.scripts);
  notes.push(
    `kept: INFO memory Δ, median: used_memory_overhead ${fmt(overhead, 1)} B a settled row; cached Lua scripts ` +
      `${fmt(scripts / 1024)} KiB a run (${fmt(scripts / (ours[0]?.settled.sent ?? Number.NaN), 1)} B a row, not per row: once a Redis); ` +
      `keys ${fmt(m((r) => r.after.keys - r.before.keys))}; seconds from the worker's start to every status applied ` +
      `[${ours.map((r) => fmt(r.seconds, 1)).join(', ')}] (machine shared with other work: times are noisy, bytes are not)`,
  );
  ours.forEach((run, i) => {
    const top = run.census.patterns.slice(0, TOP_PATTERNS);
    notes.push(
      `kept run ${i + 1}, key patterns by bytes (keys; B a settled row): ` +
        top.map((p) => `${p.pattern} (${fmt(p.keys)}; ${fmt(perRow(p.bytes, run.settled.sent), 1)})`).join(', '),
    );
  });
  bare.forEach((run, i) => {
    const top = run.census.patterns.slice(0, 6);
    notes.push(
      `kept bare run ${i + 1}, key patterns by bytes (keys; B a row): ` +
        top.map((p) => `${p.pattern} (${fmt(p.keys)}; ${fmt(perRow(p.bytes, run.rows), 1)})`).join(', '),
    );
  });
  return notes;
}
