/**
 * At most `size` rows of a worker between their claim and their request's answer at once
 * (SEND_CONCURRENCY), whether they came one to a job or several: a place is taken before the
 * claim, so a claimed row never waits for one, and given back when the answer comes, before
 * the answer is recorded (recording it waits for other answers to gather with). Waiters are
 * served in the order they asked, so a group's rows keep their order.
 */
export class RequestSlots {
  readonly #size: number;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /** Waits for a place; the answer gives it back (calling it again does nothing). */
  async acquire(): Promise<() => void> {
    if (this.#busy >= this.#size) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#busy++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      // The place passes straight to the next waiter: nobody can slip in between.
      const next = this.#waiting.shift();
      if (next === undefined) this.#busy--;
      else next();
    };
  }

  /** Rows holding a place now. */
  get busy(): number {
    return this.#busy;
  }
}
