/** Epoch milliseconds as the service takes them: 12 to 14 digits (2001 to 5138). */
const EPOCH_MS = /^\d{12,14}$/;
/** An ISO 8601 time with its offset, as the service takes it (`2026-12-24T18:00:00+01:00`, `…Z`). */
const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:?\d\d)$/i;

/** When an offer ends, from its cell (ISO time with offset, or epoch ms); null when the cell is neither. */
export function expiryOf(cell: string): number | null {
  const value = cell.trim();
  const ms = EPOCH_MS.test(value) ? Number(value) : ISO_WITH_OFFSET.test(value) ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** The countdown a limited-time offer shows: `Ends in 2d 03:04:05`, `Ends in 00:09:59`, or that it ended. */
export function countdownText(expiresAt: number, now: number): string {
  const left = Math.floor((expiresAt - now) / 1000);
  if (left <= 0) return 'Offer ended';
  const days = Math.floor(left / 86_400);
  const clock = `${two(Math.floor((left % 86_400) / 3600))}:${two(Math.floor((left % 3600) / 60))}:${two(left % 60)}`;
  return `Ends in ${days > 0 ? `${days}d ` : ''}${clock}`;
}
