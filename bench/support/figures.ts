import { max, median } from './stats.js';

/**
 * One line of the result table: our per-run values beside the baseline's, the figure that is
 * judged, and which parts of the target it missed. Throughput is judged on the median of the
 * runs; hard ceilings (peak memory, the busiest second) on the worst run, because a ceiling
 * that holds only in a typical run does not hold.
 */
export interface Figure {
  label: string;
  unit: string;
  ours: number[];
  baseline: number[];
  baselineLabel: string;
  judgedOn: 'median' | 'worst run';
  oursValue: number;
  baselineValue: number;
  /** oursValue / baselineValue, both on the same statistic. */
  ratio: number;
  target: string;
  /** Empty when every part of the target holds. */
  missed: string[];
  /** Decimal places in the table (default: 1 for msg/s under 1,000, else 0). */
  digits?: number;
  /** Shown for context, with no target of its own: the result column stays empty. */
  informational?: boolean;
}

export interface FigureSpec {
  label: string;
  unit: string;
  ours: number[];
  baseline: number[];
  baselineLabel: string;
  judgedOn: 'median' | 'worst run';
  target: string;
  /** Returns the parts of the target that do not hold, given the judged value and the ratio. */
  check: (value: number, ratio: number) => string[];
  digits?: number;
  informational?: boolean;
}

export function figure(spec: FigureSpec): Figure {
  const pick = spec.judgedOn === 'median' ? median : max;
  const oursValue = pick(spec.ours);
  const baselineValue = pick(spec.baseline);
  const ratio = oursValue / baselineValue;
  // An informational figure has no target to miss, also when it could not be measured (it reads n/a).
  const missed = spec.informational === true ? [] : Number.isFinite(oursValue) ? spec.check(oursValue, ratio) : ['no valid run'];
  return {
    ...(spec.digits === undefined ? {} : { digits: spec.digits }),
    ...(spec.informational === true ? { informational: true } : {}),
    label: spec.label,
    unit: spec.unit,
    ours: spec.ours,
    baseline: spec.baseline,
    baselineLabel: spec.baselineLabel,
    judgedOn: spec.judgedOn,
    oursValue,
    baselineValue,
    ratio,
    target: spec.target,
    missed,
  };
}

/** A section that could not run: one line saying so, instead of a figure. */
export interface SectionError {
  section: string;
  error: string;
}

export interface SectionResult {
  section:
    | 'ingest'
    | 'drain'
    | 'e2e'
    | 'rate'
    | 'feeder'
    | 'webhooks'
    | 'metrics'
    | 'scale'
    | 'toptier'
    | 'soak'
    | 'settled'
    | 'kept'
    | 'capacity'
    | 'startup'
    | 'audience';
  /**
   * Headers of the value columns, when they are not "ours / baseline / ratio" (the feeder
   * section compares with the figures measured before it, not with a bare baseline).
   */
  columns?: Columns;
  figures: Figure[];
  /** Per-run measurements beyond the figures (CPU shares, counts), for the JSON and the notes. */
  runs: Record<string, unknown>[];
  /** How the figures were measured, printed under the table. */
  method: string[];
  /** What else the runs showed (CPU shares, start-up), printed under the method. */
  notes: string[];
}

export function fmt(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const pad = (s: string, n: number) => s.padEnd(n);
/** Width of the figure column. */
const W = 40;
const padLeft = (s: string, n: number) => s.padStart(n);

export interface Columns {
  ours: string;
  baseline: string;
  ratio: string;
}
const DEFAULT_COLUMNS: Columns = { ours: 'ours', baseline: 'baseline', ratio: 'ratio' };

const digitsOf = (f: Figure) => f.digits ?? (f.unit === 'msg/s' && f.oursValue < 1000 ? 1 : 0);

export function renderTable(sections: readonly SectionResult[], errors: readonly SectionError[]): string {
  const lines: string[] = [];
  let current: Columns | undefined;
  let width = { label: W, ours: 10, baseline: 10 };
  for (const section of sections) {
    const columns = section.columns ?? DEFAULT_COLUMNS;
    if (current === undefined || JSON.stringify(current) !== JSON.stringify(columns)) {
      // A new header wherever the columns change (a blank line before all but the first).
      if (current !== undefined) lines.push('');
      current = columns;
      width = {
        label: Math.max(W, ...section.figures.map((f) => f.label.length + f.unit.length + 4)),
        ours: Math.max(10, columns.ours.length),
        baseline: Math.max(10, columns.baseline.length),
      };
      const header =
        `${pad('figure', width.label)} ${padLeft(columns.ours, width.ours)} ${padLeft(columns.baseline, width.baseline)} ` +
        `${padLeft(columns.ratio, 7)}  ${pad('target', 34)} result`;
      lines.push(header, '-'.repeat(header.length + 12));
    }
    for (const f of section.figures) {
      const digits = digitsOf(f);
      const result = f.informational === true ? '' : f.missed.length === 0 ? 'PASS' : `MISSED (${f.missed.join('; ')})`;
      const ratio = Number.isFinite(f.ratio) && f.ratio >= 0 ? `${fmt(f.ratio, 2)}x` : '';
      lines.push(
        `${pad(`${f.label} [${f.unit}]`, width.label)} ${padLeft(fmt(f.oursValue, digits), width.ours)} ` +
          `${padLeft(fmt(f.baselineValue, digits), width.baseline)} ${padLeft(ratio, 7)}  ${pad(f.target, 34)} ${result}`.trimEnd(),
      );
    }
  }
  for (const e of errors) lines.push(`${pad(e.section, W)} ERROR: ${e.error.split('\n')[0] ?? ''}`);
  lines.push('');
  lines.push('Per run (ours | baseline), then the judged statistic:');
  for (const section of sections) {
    for (const f of section.figures) {
      const digits = digitsOf(f);
      const list = (values: number[]) => values.map((v) => fmt(v, digits)).join(', ');
      lines.push(
        `  ${pad(f.label, W - 2)} ours [${list(f.ours)}] ${f.judgedOn} ${fmt(f.oursValue, digits)} | ` +
          `${f.baselineLabel} [${list(f.baseline)}] ${f.judgedOn} ${fmt(f.baselineValue, digits)}`,
      );
    }
  }
  return lines.join('\n');
}
