import { describe, expect, it } from 'vitest';
import { canonicalZone, zonesOfNumber } from '../../src/phone/recipient-zones.js';
import { toE164 } from '../../src/phone/e164.js';

function zonesOf(raw: string): readonly string[] {
  const phone = toE164(raw);
  if (!phone.ok) throw new Error(phone.reason);
  return zonesOfNumber(phone.e164, phone.country);
}

describe('zonesOfNumber', () => {
  it("takes the zone from the number's prefix where the country has several", () => {
    expect(zonesOf('+12125550123')).toEqual(['America/New_York']);
    expect(zonesOf('+13105550123')).toEqual(['America/Los_Angeles']);
    expect(zonesOf('+18085550123')).toEqual(['Pacific/Honolulu']);
    expect(zonesOf('+14165550123')).toEqual(['America/Toronto']);
    expect(zonesOf('+526641234567')).toEqual(['America/Tijuana']);
  });

  it('gives the one zone of a one-zone country', () => {
    expect(zonesOf('+5511987654321')).toEqual(['America/Sao_Paulo']);
    expect(zonesOf('+4915112345678')).toEqual(['Europe/Berlin']);
  });

  it('names zones by their current IANA name (libphonenumber still says Asia/Calcutta)', () => {
    expect(zonesOf('+919876543210')).toEqual(['Asia/Kolkata']);
  });

  it("keeps libphonenumber's answer to the number's own country", () => {
    // +1 lists every NANP zone for a prefix it does not know; a US number keeps the US ones only.
    const zones = zonesOfNumber('+19995550123', 'US');
    expect(zones.length).toBeGreaterThan(1);
    expect(zones).toContain('America/New_York');
    expect(zones).not.toContain('America/Toronto');
    expect(zones).not.toContain('Atlantic/Bermuda');
  });

  it('falls back to every zone of the country when the prefix says nothing', () => {
    const zones = zonesOfNumber('+70000000000', 'RU');
    expect(zones.length).toBeGreaterThan(5);
    expect(zones).toContain('Europe/Moscow');
    expect(zones).toContain('Asia/Kamchatka');
  });

  it('knows no zone for a number of no country', () => {
    expect(zonesOfNumber('+80012345678', undefined)).toEqual([]);
  });
});

describe('canonicalZone', () => {
  it('accepts IANA names in any case and resolves aliases', () => {
    expect(canonicalZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalZone('america/new_york')).toBe('America/New_York');
    expect(canonicalZone('Asia/Calcutta')).toBe('Asia/Kolkata');
    expect(canonicalZone('UTC')).toBe('Etc/UTC');
  });

  it.each(['Mars/Base', '+01:00', 'GMT+1 ', '', '=HYPERLINK("x")', 'Europe/Berlin; DROP'])('refuses %j', (name) => {
    expect(canonicalZone(name)).toBeUndefined();
  });
});
