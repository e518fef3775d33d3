import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { metaWamid, metaWamidParts } from '../../src/cloud-api/wamid-shape.js';
import { packedHexId, unpackedHexId } from '../../src/redis/ledger/row-codec.js';
import { wamidKeepArgs } from '../../src/redis/ledger/wamid-compact.js';

/** Meta's ID shape read back (the worker and the service decode it before a script keeps it). */
describe("Meta's message-ID shape, decoded", () => {
  // Up to 63 digits: the ID's first characters (`wamid.HBg`) hold the count's two top bits at 0 (a phone has at most 15).
  const digits = fc.stringMatching(/^[1-9]\d{0,62}$/);
  const hexId = fc.stringMatching(/^[0-9A-Za-z]{1,64}$/);

  it('gives back the digits and hex ID of every ID metaWamid makes of a message the business sent', () => {
    fc.assert(
      fc.property(digits, hexId, (d, h) => {
        expect(metaWamidParts(metaWamid(d, h))).toEqual({ digits: d, hexId: h });
      }),
    );
  });

  it('reads nothing from a user’s message, another encoding of the same bytes, or another shape', () => {
    expect(metaWamidParts(metaWamid('1'.repeat(64), '77A3EFF5D7E0C2B469'))).toBeUndefined();
    const own = metaWamid('4915110000001', '77A3EFF5D7E0C2B469');
    expect(own).toMatch(/=$/);
    for (const other of [
      metaWamid('4915110000001', '77A3EFF5D7E0C2B469', 'received'),
      own.replace(/=+$/, ''),
      `${own.slice(0, -2)}B=`,
      `${own.slice(0, 20)}=${own.slice(21)}`,
      own.replace('CABEYE', 'CABEY+'),
      metaWamid('4915110000001', 'AB-CD'),
      metaWamid('4915110000001', ''),
      'wamid.first',
      `${own}${'A'.repeat(300)}`,
      '',
    ]) {
      expect(metaWamidParts(other)).toBeUndefined();
    }
  });

  it('packs an upper-case hex ID whose length is a multiple of 6 to `~` and base64url, any other as it is, and unpacks it', () => {
    expect(packedHexId('77A3EFF5D7E0C2B469')).toBe('~d6Pv9dfgwrRp');
    expect(packedHexId('77a3eff5d7e0c2b469')).toBe('77a3eff5d7e0c2b469');
    expect(packedHexId('77A3E')).toBe('77A3E');
    fc.assert(
      fc.property(fc.oneof(hexId, fc.stringMatching(/^([0-9A-F]{6})+$/)), (h) => {
        expect(unpackedHexId(packedHexId(h))).toBe(h);
      }),
    );
  });

  it('gives a script the digits and `m` of an ID of that shape, two empty strings for any other', () => {
    expect(wamidKeepArgs(metaWamid('16503879439', '77A3EFF5D7E0C2B469'))).toEqual(['16503879439', '~d6Pv9dfgwrRp']);
    expect(wamidKeepArgs('wamid.first')).toEqual(['', '']);
    expect(wamidKeepArgs('')).toEqual(['', '']);
  });
});
