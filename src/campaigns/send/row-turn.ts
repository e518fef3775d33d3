/**
 * A paced row is claimed this long before its slot: claims gather for a few ms (CLAIM_GATHER_MS,
 * src/redis/ledger/ledger-send.ts) and take their round trip, and a claim that came back late
 * would hold its send past its slot, then let it leave bunched with the next.
 */
export const CLAIM_LEAD_MS = 10;

/** One row's way through the send path: when its slot is, and what to call as its answer comes. */
export interface RowTurn {
  /** Its pacer slot (performance.now()'s clock); undefined when unpaced or held. */
  slotAt: number | undefined;
  /** Gives its request place back (RequestSlots): called as the answer comes, before it is recorded. */
  answered: () => void;
}
