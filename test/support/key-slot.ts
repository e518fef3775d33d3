/**
 * Redis Cluster's slot of a key (CRC16/XMODEM of the key, or of its first non-empty `{…}` hash
 * tag, mod 16384), computed here so a test on a single Redis can check what a cluster would.
 */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key);
  const open = bytes.indexOf('{');
  if (open !== -1) {
    const close = bytes.indexOf('}', open + 1);
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % 16384;
  }
  return crc16(bytes) % 16384;
}

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
