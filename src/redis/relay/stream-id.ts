/**
 * Redis stream entry IDs (`<ms>-<seq>`) compared and stepped as numbers: as strings,
 * `999-0` would sort after `1000-0`. The sequence is a 64-bit number, so BigInt.
 */
export function compareStreamIds(a: string, b: string): number {
  const [ams, aseq] = idParts(a);
  const [bms, bseq] = idParts(b);
  if (ams !== bms) return ams < bms ? -1 : 1;
  return aseq === bseq ? 0 : aseq < bseq ? -1 : 1;
}

/** The lowest ID after `id`: XTRIM MINID with it drops `id` and everything before. */
export function nextStreamId(id: string): string {
  const [ms, seq] = idParts(id);
  return `${ms}-${seq + 1n}`;
}

/** `<ms>-0`: where the entries appended from `ms` on start. */
export function streamIdAt(ms: number): string {
  return `${Math.max(0, Math.floor(ms))}-0`;
}

function idParts(id: string): [bigint, bigint] {
  const match = /^(\d+)-(\d+)$/.exec(id);
  if (match === null) throw new RangeError(`not a stream entry ID: ${id}`);
  return [BigInt(match[1] ?? '0'), BigInt(match[2] ?? '0')];
}
