/**
 * The first row of each recipient in a file, for DUPLICATE_PHONE: a million recipients in
 * about 24 MB instead of ~100 MB of Map<string, number>. Every E.164 number has at most 15
 * digits, so its digits fit exactly in a double (< 2^53); keys are those doubles in an
 * open-addressing table with linear probing.
 */
export class PhoneRowIndex {
  #keys: Float64Array;
  #rows: Uint32Array;
  #size = 0;

  constructor(capacity = 1024) {
    const slots = 2 ** Math.ceil(Math.log2(Math.max(16, capacity * 2)));
    this.#keys = new Float64Array(slots);
    this.#rows = new Uint32Array(slots);
  }

  get size(): number {
    return this.#size;
  }

  /** The first row recorded for this number, or undefined. */
  get(phone: string): number | undefined {
    const key = keyOf(phone);
    const mask = this.#keys.length - 1;
    for (let slot = hash(key) & mask; ; slot = (slot + 1) & mask) {
      const row = this.#rows[slot] ?? 0;
      if (row === 0) return undefined;
      if (this.#keys[slot] === key) return row;
    }
  }

  /** Records the number's row unless it has one already (the first row is the one sent). */
  setIfAbsent(phone: string, row: number): void {
    if (row <= 0) throw new RangeError('rows are numbered from 1');
    if ((this.#size + 1) * 2 > this.#keys.length) this.#grow();
    this.#place(keyOf(phone), row);
  }

  #place(key: number, row: number): void {
    const mask = this.#keys.length - 1;
    for (let slot = hash(key) & mask; ; slot = (slot + 1) & mask) {
      if ((this.#rows[slot] ?? 0) === 0) {
        this.#keys[slot] = key;
        this.#rows[slot] = row;
        this.#size++;
        return;
      }
      if (this.#keys[slot] === key) return;
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const rows = this.#rows;
    this.#keys = new Float64Array(keys.length * 2);
    this.#rows = new Uint32Array(rows.length * 2);
    this.#size = 0;
    for (let slot = 0; slot < keys.length; slot++) {
      const row = rows[slot] ?? 0;
      if (row !== 0) this.#place(keys[slot] ?? 0, row);
    }
  }
}

/** "+4915112345678" → 4915112345678. Only E.164 numbers (the row check made them) come here. */
function keyOf(phone: string): number {
  const digits = phone.startsWith('+') ? phone.slice(1) : phone;
  if (!/^\d{1,15}$/.test(digits)) throw new RangeError(`not an E.164 number: ${phone}`);
  return Number(digits);
}

/** Mixes the number's high and low parts, so numbers that differ only in high digits spread too. */
function hash(key: number): number {
  const low = key % 4294967296;
  const high = Math.floor(key / 4294967296);
  let h = Math.imul(low ^ (high * 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
