import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { ensureCsv } from './support/data.js';
import { figure, fmt, type SectionResult } from './support/figures.js';
import { CAMPAIGN_BIN, ROOT, campaignSend, productEnv } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import { median } from './support/stats.js';

/**
 * How fast `campaign` starts, beside a bare `node -e ''` on the same machine in the same run:
 * each command runs in turn with the bare node (A B A B …), so a drift in the machine's speed
 * hits both alike, and the ratio is taken pair by pair. Wall time, from spawn to exit, is what
 * the targets are set on. A first run of each command is not counted: it writes the command's
 * compile cache, which every later start reads.
 */
const PAIRS_PER_RUN = 10;
const STATUS_ROWS = 5;

interface Pair {
  oursMs: number;
  bareMs: number;
}

interface CommandSpec {
  label: string;
  args: readonly string[];
  target: number;
}

function wallMs(args: readonly string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const elapsed = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${String(result.status)}: ${result.stderr.toString().slice(-500)}`);
  }
  return elapsed;
}

function measurePairs(command: CommandSpec, env: NodeJS.ProcessEnv, count: number): Pair[] {
  const ours = [CAMPAIGN_BIN, ...command.args];
  wallMs(ours, env);
  const pairs: Pair[] = [];
  for (let i = 0; i < count; i++) pairs.push({ oursMs: wallMs(ours, env), bareMs: wallMs(['-e', ''], env) });
  return pairs;
}

export async function benchStartup(options: { runs: number; redis: Redis }): Promise<SectionResult> {
  const prefix = freshPrefix('startup');
  const env = productEnv(prefix);
  try {
    const campaign = await campaignSend(await ensureCsv(STATUS_ROWS), prefix);
    const commands: CommandSpec[] = [
      { label: 'campaign --help', args: ['--help'], target: 1.5 },
      { label: `campaign status ID (${STATUS_ROWS} queued rows)`, args: ['status', campaign.id], target: 2.5 },
      { label: 'campaign list', args: ['list'], target: 2.5 },
    ];
    const byCommand = new Map<CommandSpec, Pair[]>(commands.map((c) => [c, []]));
    for (let run = 0; run < options.runs; run++) {
      for (const command of commands) {
        const pairs = measurePairs(command, env, PAIRS_PER_RUN);
        byCommand.get(command)?.push(...pairs);
        const ratio = median(pairs.map((p) => p.oursMs / p.bareMs));
        console.error(`  startup run ${run + 1}/${options.runs}: ${command.label}: ${fmt(ratio, 2)}× a bare node`);
      }
    }
    return {
      section: 'startup',
      figures: commands.map((command) => {
        const pairs = byCommand.get(command) ?? [];
        const pairRatio = median(pairs.map((p) => p.oursMs / p.bareMs));
        return figure({
          label: `${command.label}, wall (pair ratio ${fmt(pairRatio, 2)}×)`,
          unit: 'ms',
          ours: pairs.map((p) => p.oursMs),
          baseline: pairs.map((p) => p.bareMs),
          baselineLabel: "node -e ''",
          judgedOn: 'median',
          target: `≤ ${command.target}× a bare node`,
          digits: 0,
          check: () => (pairRatio <= command.target ? [] : [`> ${command.target}×`]),
        });
      }),
      runs: commands.map((command) => ({ command: command.label, pairs: byCommand.get(command) })),
      method: [
        `${options.runs} run(s) of ${PAIRS_PER_RUN} pairs per command: \`node bin/campaign.js <command>\` and \`node -e ''\` in turn, ` +
          'wall time from spawn to exit; the ratio is the median of the pairs’ ratios; one uncounted first run writes the compile cache',
        `status and list read a prefix of their own holding one campaign of ${STATUS_ROWS} queued rows (no worker)`,
      ],
      notes: [],
    };
  } finally {
    await deletePrefix(options.redis, prefix);
  }
}
