import type { WamidKind } from '../cloud-api/wamid-shape.js';

/**
 * A message ID taken apart, the inverse of metaWamid (src/cloud-api/wamid-shape.ts): the
 * user's digits, the hex ID, and whether the business or the user sent it. Undefined for
 * anything not of that shape, Meta's own IDs included: the sandbox reads only the IDs it made.
 */
export interface WamidParts {
  digits: string;
  hexId: string;
  kind: WamidKind;
}

const PREFIX = 'wamid.';

export function wamidParts(wamid: string): WamidParts | undefined {
  if (!wamid.startsWith(PREFIX)) return undefined;
  const bytes = Buffer.from(wamid.slice(PREFIX.length), 'base64');
  const digitCount = bytes[2] ?? 0;
  const after = 3 + digitCount;
  if (bytes[0] !== 0x1c || bytes[1] !== 0x18 || bytes[after] !== 0x15 || bytes[after + 1] !== 0x02 || bytes[after + 2] !== 0x00) {
    return undefined;
  }
  const kindByte = bytes[after + 3];
  const hexLength = bytes[after + 5] ?? 0;
  const end = after + 6 + hexLength;
  if ((kindByte !== 0x11 && kindByte !== 0x12) || bytes[after + 4] !== 0x18 || bytes[end] !== 0x00 || bytes.length !== end + 1) {
    return undefined;
  }
  const digits = bytes.toString('latin1', 3, after);
  const hexId = bytes.toString('latin1', after + 6, end);
  if (!/^\d*$/.test(digits) || !/^[0-9A-F]+$/.test(hexId)) return undefined;
  return { digits, hexId, kind: kindByte === 0x11 ? 'sent' : 'received' };
}
