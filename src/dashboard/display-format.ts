/** How the dashboard writes figures: the same strings in the HTML and in its live JSON. */

export const DASH = '–';

/** 1234567 → "1,234,567". */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Messages per second, one decimal. */
export function rate(perSecond: number): string {
  return `${perSecond.toFixed(1)}/s`;
}

/** 3725 → "1h 02m 05s"; 65 → "1m 05s"; 4 → "4s". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m ${pad(rest)}s`;
  if (m > 0) return `${m}m ${pad(rest)}s`;
  return `${rest}s`;
}

/**
 * ms since the epoch → "2026-11-23 22:45:10 UTC": every time on the pages is written so, in UTC
 * with its zone, the same for every operator whatever their browser's locale and zone. The pages'
 * scripts write the times they get with it too (src/dashboard/browser/utc-time.ts).
 */
export function time(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return DASH;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A share as a whole percent, never 100 % before it is all done. */
export function percent(done: number, total: number): number {
  if (total <= 0) return 0;
  const p = Math.floor((done / total) * 1000) / 10;
  return done < total ? Math.min(p, 99.9) : 100;
}

/** At most `max` characters, with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
