import { zoneOffsetMs } from '../feed/send-window.js';
import { AppError } from '../../errors/app-error.js';
import { ZONE_NAME } from '../../phone/recipient-zones.js';

/**
 * Where the operator reads a plan's times: the fixed offset they typed in a time option, or
 * an IANA zone (`--display-timezone`, else this machine's). UTC is shown as UTC alone.
 */
export type DisplayZone = { kind: 'offset'; minutes: number } | { kind: 'zone'; name: string };

const TYPED_OFFSET = /(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * `--display-timezone Europe/Berlin`: an IANA zone Intl knows, in its canonical spelling. Refused naming the field as `name`:
 * OPTION_INVALID when the value is not of a zone name's form, TIMEZONE_NOT_FOUND when it is but Intl knows no such zone.
 */
export function checkDisplayTimezone(value: string, name: string): string {
  try {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
    if (canonical !== undefined && canonical !== '') return canonical;
  } catch {
    // Refused below with what to give instead.
  }
  throw new AppError(
    ZONE_NAME.test(value) ? 'TIMEZONE_NOT_FOUND' : 'OPTION_INVALID',
    `${name} "${value}": give an IANA time zone such as Europe/Berlin, America/New_York or UTC`,
  );
}

/**
 * The zone a plan is shown in: `--display-timezone` when given; else the offset typed in the
 * first of `typed` that has one (the operator wrote `--at …+01:00`, so they think in +01:00);
 * else this machine's zone. A zone that is not one is refused naming `name` (the flag or the field).
 */
export function displayZoneOf(
  options: { displayTimezone?: string | undefined; typed?: readonly (string | undefined)[] },
  name: string,
): DisplayZone {
  if (options.displayTimezone !== undefined) return { kind: 'zone', name: checkDisplayTimezone(options.displayTimezone, name) };
  for (const value of options.typed ?? []) {
    const match = value === undefined ? null : TYPED_OFFSET.exec(value);
    if (match === null) continue;
    if (match[1] === 'Z') return { kind: 'offset', minutes: 0 };
    const minutes = Number(match[3]) * 60 + Number(match[4]);
    return { kind: 'offset', minutes: match[2] === '-' ? -minutes : minutes };
  }
  return machineZone();
}

export function machineZone(): DisplayZone {
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return { kind: 'zone', name: name === undefined || name === '' ? 'UTC' : name };
}

/** `2026-12-01 09:00:00 +01:00 (08:00:00 UTC)`; the UTC date too when it is another day; `… UTC` alone in UTC. */
export function formatInstant(ms: number, zone: DisplayZone): string {
  const offsetMs = zone.kind === 'offset' ? zone.minutes * 60_000 : zone.name === 'UTC' ? 0 : zoneOffsetMs(zone.name, ms);
  const utc = stamp(ms);
  if (offsetMs === 0 && (zone.kind === 'offset' || zone.name === 'UTC')) return `${utc.date} ${utc.time} UTC`;
  const local = stamp(ms + offsetMs);
  return `${local.date} ${local.time} ${offsetText(offsetMs)} (${local.date === utc.date ? '' : `${utc.date} `}${utc.time} UTC)`;
}

function stamp(ms: number): { date: string; time: string } {
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 19) };
}

function offsetText(offsetMs: number): string {
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  return `${offsetMs < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}
