import type uPlot from 'uplot';
import type { TimelineSeries } from '../../campaigns/report/campaign-timeline.js';
import { nothing } from './chart-bars.js';
import { clear } from './dom.js';
import { utcTime } from './utc-time.js';

declare global {
  interface Window {
    /** uPlot's browser build, loaded before the charts' script (src/dashboard/campaign-charts.ts). */
    uPlot?: typeof uPlot;
    /** The time chart, kept where a test can read its data. */
    campaignTimeline?: uPlot;
  }
}

export const KINDS = ['sent', 'delivered', 'read', 'failed'] as const;
export const COLORS: Readonly<Record<string, string>> = { sent: '#1f6feb', delivered: '#1a7f37', read: '#8250df', failed: '#cf222e' };
const HEIGHT = 260;

/** The chart once drawn: later updates give it their figures. */
let plot: uPlot | undefined;

function width(el: HTMLElement): number {
  return Math.max(320, Math.min(el.clientWidth || 900, 1100));
}

/** A line needs two points, and lines that all stay at zero say nothing either. */
function moved(series: TimelineSeries): boolean {
  return series.t.length >= 2 && KINDS.some((k) => series[k].some((n) => n !== 0));
}

/** The time axis in UTC as the page writes times: hours (and seconds, ticks under a minute apart), a day's date under its first. */
function ticks(_u: uPlot, splits: number[], _axis: number, _space: number, increment: number): string[] {
  const end = increment < 60 ? 19 : 16;
  return splits.map((v, i) => {
    const at = utcTime(v * 1000);
    const day = at.slice(0, 10);
    const previous = splits[i - 1];
    const first = previous === undefined || day !== utcTime(previous * 1000).slice(0, 10);
    return first ? `${at.slice(11, end)}\n${day}` : at.slice(11, end);
  });
}

/**
 * The counters over time, drawn with uPlot in `el` once they have moved, then given each live
 * update's figures (uPlot keeps its scales and cursor).
 */
export function timeline(el: HTMLElement, UPlot: typeof uPlot, series: TimelineSeries): void {
  const data: uPlot.AlignedData = [series.t, ...KINDS.map((k) => series[k])];
  if (plot) return plot.setData(data);
  if (!moved(series)) return nothing(el, 'no row sent, delivered, read or failed over time.');
  clear(el);
  const drawn = new UPlot(
    {
      width: width(el),
      height: HEIGHT,
      tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      series: [
        { value: (_u, v) => (v === null ? '–' : utcTime(v * 1000)) },
        ...KINDS.map((k) => ({ label: k, stroke: COLORS[k] ?? '', width: 2 })),
      ],
      axes: [{ values: ticks, space: 70, size: 56 }, { size: 60 }],
    },
    data,
    el,
  );
  plot = drawn;
  window.campaignTimeline = drawn;
  window.addEventListener('resize', () => drawn.setSize({ width: width(el), height: HEIGHT }));
}
