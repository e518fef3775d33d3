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
}

export function figure(spec: FigureSpec): Figure {
  const pick = spec.judgedOn === 'median' ? median : max;
  const oursValue = pick(spec.ours);
  const baselineValue = pick(spec.baseline);
  const ratio = oursValue / baselineValue;
  const missed = Number.isFinite(oursValue) ? spec.check(oursValue, ratio) : ['no valid run'];
  return {
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
  section: 'ingest' | 'drain' | 'rate';
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

export function renderTable(sections: readonly SectionResult[], errors: readonly SectionError[]): string {
  const lines: string[] = [];
  const header = `${pad('figure', W)} ${padLeft('ours', 10)} ${padLeft('baseline', 10)} ${padLeft('ratio', 7)}  ${pad('target', 34)} result`;
  lines.push(header, '-'.repeat(header.length + 12));
  for (const section of sections) {
    for (const f of section.figures) {
      const digits = f.unit === 'msg/s' && f.oursValue < 1000 ? 1 : 0;
      const result = f.missed.length === 0 ? 'PASS' : `MISSED (${f.missed.join('; ')})`;
      lines.push(
        `${pad(`${f.label} [${f.unit}]`, W)} ${padLeft(fmt(f.oursValue, digits), 10)} ${padLeft(fmt(f.baselineValue, digits), 10)} ` +
          `${padLeft(`${fmt(f.ratio, 2)}x`, 7)}  ${pad(f.target, 34)} ${result}`,
      );
    }
  }
  for (const e of errors) lines.push(`${pad(e.section, W)} ERROR: ${e.error.split('\n')[0] ?? ''}`);
  lines.push('');
  lines.push('Per run (ours | baseline), then the judged statistic:');
  for (const section of sections) {
    for (const f of section.figures) {
      const digits = f.unit === 'msg/s' && f.oursValue < 1000 ? 1 : 0;
      const list = (values: number[]) => values.map((v) => fmt(v, digits)).join(', ');
      lines.push(
        `  ${pad(f.label, W - 2)} ours [${list(f.ours)}] ${f.judgedOn} ${fmt(f.oursValue, digits)} | ` +
          `${f.baselineLabel} [${list(f.baseline)}] ${f.judgedOn} ${fmt(f.baselineValue, digits)}`,
      );
    }
  }
  return lines.join('\n');
}
