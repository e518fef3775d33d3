/**
 * A set of 64-bit digests held in one typed array (open addressing, linear probing), for
 * remembering every accepted send of a run that may reach tens of millions.
 *
 * A Set of strings costs a heap object per entry (about 90 bytes with the digest string), and
 * the garbage collector walks every one of them again in each major collection and pays for
 * each new one in the scavenge that promotes it: the more a run has accepted, the more each
 * further send costs. Here an entry is 8 bytes inside one array the collector never looks
 * into, so an add costs the same at the ten-millionth entry as at the first (bar the rare
 * doubling, one pass over the array).
 *
 * A digest is two 32-bit halves; (0, 0) marks an empty slot, so a digest of all zeros is
 * stored as (0, 1): for SHA-256 halves that merge is as likely as any other collision.
 */
const MAX_LOAD = 0.75;
const INITIAL_SLOTS = 1 << 12;

export class DigestSet {
  /** Slot i is words 2i (high half) and 2i+1 (low half). */
  private slots = new Uint32Array(2 * INITIAL_SLOTS);
  private mask = INITIAL_SLOTS - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds the digest (high, low: unsigned 32-bit halves); false when it was already in. */
  add(high: number, low: number): boolean {
    if (high === 0 && low === 0) low = 1;
    if (this.count + 1 > MAX_LOAD * (this.mask + 1)) this.grow();
    return this.insert(high >>> 0, low >>> 0);
  }

  has(high: number, low: number): boolean {
    if (high === 0 && low === 0) low = 1;
    const slots = this.slots;
    for (let i = low & this.mask; ; i = (i + 1) & this.mask) {
      const h = slots[2 * i] ?? 0;
      const l = slots[2 * i + 1] ?? 0;
      if (h === 0 && l === 0) return false;
      if (h === high >>> 0 && l === low >>> 0) return true;
    }
  }

  clear(): void {
    this.slots = new Uint32Array(2 * INITIAL_SLOTS);
    this.mask = INITIAL_SLOTS - 1;
    this.count = 0;
  }

  private insert(high: number, low: number): boolean {
    const slots = this.slots;
    // The low half indexes: SHA-256 bits are uniform, so no further mixing is needed.
    for (let i = low & this.mask; ; i = (i + 1) & this.mask) {
      const h = slots[2 * i] ?? 0;
      const l = slots[2 * i + 1] ?? 0;
      if (h === 0 && l === 0) {
        slots[2 * i] = high;
        slots[2 * i + 1] = low;
        this.count += 1;
        return true;
      }
      if (h === high && l === low) return false;
    }
  }

  private grow(): void {
    const old = this.slots;
    const slots = 2 * (this.mask + 1);
    this.slots = new Uint32Array(2 * slots);
    this.mask = slots - 1;
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) {
      const h = old[i] ?? 0;
      const l = old[i + 1] ?? 0;
      if (h !== 0 || l !== 0) this.insert(h, l);
    }
  }
}
