/**
 * At most `size` rows of a worker in the send path at once (SEND_CONCURRENCY), whether they
 * came one to a job or several: a group job's rows take places as a job of one row took
 * BullMQ's. Waiters are served in the order they asked, so a group's rows keep their order.
 */
export class RequestSlots {
  readonly #size: number;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#busy >= this.#size) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#busy++;
    try {
      return await work();
    } finally {
      // The place passes straight to the next waiter: nobody can slip in between.
      const next = this.#waiting.shift();
      if (next === undefined) this.#busy--;
      else next();
    }
  }

  /** Rows in the send path now. */
  get busy(): number {
    return this.#busy;
  }
}
