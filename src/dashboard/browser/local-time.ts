const pad = (n: number): string => String(Math.abs(n)).padStart(2, '0');

/**
 * A datetime-local value ("2026-12-01T09:00") as ISO 8601 with this browser's offset then, as
 * the spec's times must be (an offset given, never guessed by the server); '' stays ''.
 */
export function isoWithOffset(local: string): string {
  if (!local) return '';
  const d = new Date(local);
  if (isNaN(d.getTime())) return local;
  const off = -d.getTimezoneOffset();
  const zone = `${off >= 0 ? '+' : '-'}${pad(Math.trunc(off / 60))}:${pad(off % 60)}`;
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${day}T${pad(d.getHours())}:${pad(d.getMinutes())}:00${zone}`;
}
