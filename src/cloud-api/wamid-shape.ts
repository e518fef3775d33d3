/**
 * The shape of Meta's message IDs, as its examples show them: `wamid.` and the standard base64
 * (with padding) of a small protobuf-like record, `1C 18 <n> <the user's n digits> 15 02 00`,
 * then `11 18 <m> <m characters>` for a message the business sent (an 18-character hex ID:
 * 58 characters in all for 11 digits, 54–66 for 7–15) or `12 18 <m> …` for one a user sent (20),
 * then `00`.
 * The sandbox makes its IDs so; the ledger keeps a sent row's ID as its hex part when rebuilding
 * it from the row's phone gives back the very same ID (metaWamidParts; src/redis/ledger/wamid-compact.ts).
 */

/** What the message ID names: a message the business sent, or one a user sent to it. */
export type WamidKind = 'sent' | 'received';

/** The ID Meta's shape gives these digits and this hex ID (ASCII, each under 128 characters). */
export function metaWamid(digits: string, hexId: string, kind: WamidKind = 'sent'): string {
  const bytes = Buffer.allocUnsafe(digits.length + hexId.length + 10);
  let at = bytes.writeUInt8(0x1c, 0);
  at = bytes.writeUInt8(0x18, at);
  at = bytes.writeUInt8(digits.length, at);
  at += bytes.write(digits, at, 'latin1');
  at = bytes.writeUInt8(0x15, at);
  at = bytes.writeUInt8(0x02, at);
  at = bytes.writeUInt8(0x00, at);
  at = bytes.writeUInt8(kind === 'sent' ? 0x11 : 0x12, at);
  at = bytes.writeUInt8(0x18, at);
  at = bytes.writeUInt8(hexId.length, at);
  at += bytes.write(hexId, at, 'latin1');
  bytes.writeUInt8(0x00, at);
  return `wamid.${bytes.toString('base64')}`;
}

/** The record's fixed bytes around the digits of a message the business sent: after the digits, then its end. */
const SENT_AFTER_DIGITS = Buffer.from([0x15, 0x02, 0x00, 0x11, 0x18]);
/** A hex ID of up to 64 characters for up to 127 digits: a record of at most 201 bytes, 268 in base64; anything longer is not decoded. */
const MAX_HEX_ID = 64;
const MAX_WAMID = 274;
const HEX_ID = /^[0-9A-Za-z]+$/;
const DIGITS = /^\d{1,127}$/;

/**
 * The digits and hex ID that metaWamid makes `wamid` from, for a message the business sent;
 * undefined for any other ID: another shape, or a base64 that is not the one encoding of its
 * bytes (padded, the bits the padding leaves over zero), so that metaWamid gives back the very
 * same string.
 */
export function metaWamidParts(wamid: string): { digits: string; hexId: string } | undefined {
  if (wamid.length > MAX_WAMID || !wamid.startsWith('wamid.HBg')) return undefined;
  const encoded = wamid.slice(6);
  const record = Buffer.from(encoded, 'base64');
  if (record.toString('base64') !== encoded) return undefined;
  const count = record[2] ?? 0;
  const afterDigits = 3 + count;
  const digits = record.toString('latin1', 3, afterDigits);
  if (!DIGITS.test(digits) || !record.subarray(afterDigits, afterDigits + SENT_AFTER_DIGITS.length).equals(SENT_AFTER_DIGITS)) {
    return undefined;
  }
  const sizeAt = afterDigits + SENT_AFTER_DIGITS.length;
  const size = record[sizeAt] ?? 0;
  if (size < 1 || size > MAX_HEX_ID || record.length !== sizeAt + 1 + size + 1 || record[record.length - 1] !== 0) return undefined;
  const hexId = record.toString('latin1', sizeAt + 1, sizeAt + 1 + size);
  return HEX_ID.test(hexId) ? { digits, hexId } : undefined;
}
