import type { RefusedRow } from './producer.js';
import type { RejectsSink } from './rejects-file.js';
import { columnOfDetail, type RejectedRow } from './rejects-read.js';

/**
 * A dry run's refused rows kept for its answer instead of a file: the first `limit` of them
 * and how many there were. Nothing is written, so nothing outlives the request (a file would
 * stay on the service's disk, one per dry run, where the client cannot fetch it).
 */
export class RejectsSample implements RejectsSink {
  readonly rows: RejectedRow[] = [];
  #total = 0;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Every refused row seen, kept or not. */
  get total(): number {
    return this.#total;
  }

  add(refused: RefusedRow): void {
    this.#total++;
    if (this.rows.length >= this.#limit) return;
    const column = columnOfDetail(refused.detail);
    this.rows.push({
      row: refused.row,
      ...(refused.phone === '' ? {} : { phone: refused.phone }),
      reason: refused.reason,
      ...(column === undefined ? {} : { column }),
      detail: refused.detail,
    });
  }

  /** No file: there is no path to give. */
  close(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
}
