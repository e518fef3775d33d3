/**
 * A paced row is claimed at least this long before its slot (the pacer wakes rows on a grid of a
 * few ms, so up to that much more): its claim and then its admission each take a round trip, and
 * a claim that came back late would hold its send past its slot, then let it leave bunched with the next.
 */
export const CLAIM_LEAD_MS = 10;

/** One row's way through the send path: when its slot is, and what to call as its answer comes. */
export interface RowTurn {
  /** Its pacer slot (performance.now()'s clock); undefined when unpaced or held. */
  slotAt: number | undefined;
  /** Gives its request place back (RequestSlots): called as the answer comes, before it is recorded. */
  answered: () => void;
}
