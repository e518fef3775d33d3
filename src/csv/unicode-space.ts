/**
 * The spaces that String#trim removes, except the line breaks CR and LF: U+00A0 (no-break
 * space, which Excel and web pages paste), U+2000–U+200A, U+3000 (ideographic space), a
 * stray BOM (U+FEFF) and the rest. The reader allows them around quoted fields, as it allows
 * ASCII spaces, and keeps them in unquoted fields (the row check trims values).
 */
export function isSpaceCode(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || code === 0x09 || code === 0x0b || code === 0x0c;
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * The same spaces, read from UTF-8 bytes at `i`: the length of the space's encoding, or 0
 * when the bytes there are not one of them. Bytes at or past `end` are not looked at, so a
 * sequence cut by the end of the data is not a space.
 */
export function utf8SpaceLength(bytes: Uint8Array, i: number, end: number): number {
  const b0 = bytes[i];
  if (b0 === 0x20 || b0 === 0x09 || b0 === 0x0b || b0 === 0x0c) return 1;
  if (b0 === undefined || b0 < 0xc2 || i + 1 >= end) return 0;
  const b1 = bytes[i + 1];
  if (b0 === 0xc2) return b1 === 0xa0 ? 2 : 0; // U+00A0
  if (i + 2 >= end) return 0;
  const b2 = bytes[i + 2];
  if (b0 === 0xe1) return b1 === 0x9a && b2 === 0x80 ? 3 : 0; // U+1680
  if (b0 === 0xe2) {
    // U+2000–200A, 2028, 2029, 202F
    if (b1 === 0x80 && b2 !== undefined && ((b2 >= 0x80 && b2 <= 0x8a) || b2 === 0xa8 || b2 === 0xa9 || b2 === 0xaf)) return 3;
    return b1 === 0x81 && b2 === 0x9f ? 3 : 0; // U+205F
  }
  if (b0 === 0xe3) return b1 === 0x80 && b2 === 0x80 ? 3 : 0; // U+3000
  if (b0 === 0xef) return b1 === 0xbb && b2 === 0xbf ? 3 : 0; // U+FEFF
  return 0;
}
