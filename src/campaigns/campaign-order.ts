/**
 * The order every list of campaigns shows (`campaign list`, `GET /api/v1/campaigns`, the campaigns page): newest first,
 * by the creation time each campaign stores. Not by ID: a generated ID says only the minute (`c20261125-1747-…`, then
 * random), and an ID given with `--campaign` says nothing of time.
 *
 * The ledger lists campaigns in creation order already: its index is a sorted set scored by `createdAt`, which Redis
 * orders by score, then by ID (bytes; IDs are ASCII). Newest first is that order reversed: the latest creation first, and
 * of campaigns created in the same millisecond, the greater ID first.
 */
export function newestFirst(idsInCreationOrder: readonly string[]): string[] {
  return [...idsInCreationOrder].reverse();
}

/**
 * Where a page of the newest-first list starts after `cursor` (the last ID of the previous page): 0 without one, and past
 * the end when the cursor names no campaign listed, so a stale or made-up cursor gives an empty page, never the first again.
 */
export function pageStartAfter(ids: readonly string[], cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const at = ids.indexOf(cursor);
  return at < 0 ? ids.length : at + 1;
}
