/**
 * The shape of Meta's message IDs, as its examples show them: `wamid.` and the standard base64
 * (with padding) of a small protobuf-like record, `1C 18 <n> <the user's n digits> 15 02 00`,
 * then `11 18 <m> <m characters>` for a message the business sent (an 18-character hex ID:
 * 58 characters in all for 11 digits, 54–66 for 7–15) or `12 18 <m> …` for one a user sent (20),
 * then `00`.
 * The sandbox makes its IDs so; the ledger keeps a sent row's ID as its hex part when rebuilding
 * it from the row's phone gives back the very same ID (src/redis/lua/includes/wamid-compact.lua).
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
