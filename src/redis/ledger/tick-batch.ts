/**
 * Gathers calls made in the same turn of the event loop into one call per key. With 100
 * sends in flight, several answers arrive in each poll phase; their ledger writes then cost
 * one Redis round trip (one script run, one reply to parse) instead of one each, which is
 * what the CPU-bound worker spends its time on. Each caller still waits for its own result,
 * so nothing runs ahead of the write it depends on.
 */
export class TickBatch<Item, Result> {
  readonly #run: (key: string, items: readonly Item[]) => Promise<readonly Result[]>;
  readonly #maxItems: number;
  readonly #gatherMs: number;
  #pending = new Map<string, Waiting<Item, Result>[]>();
  /** A flush is queued for the next turn (setImmediate). */
  #scheduled = false;
  /** The gathering flush's timer, and when it fires (performance.now()'s clock). */
  #timer: NodeJS.Timeout | undefined;
  #timerDue = Number.POSITIVE_INFINITY;

  /**
   * `run` must return one result per item, in order; a rejection fails every item of that call.
   * `gatherMs`: gather for this long after the first item instead of one turn (a call as soon
   * as any key holds `maxItems`), for calls whose items come one by one, a few ms apart.
   */
  constructor(
    run: (key: string, items: readonly Item[]) => Promise<readonly Result[]>,
    options: { maxItems?: number; gatherMs?: number } = {},
  ) {
    this.#run = run;
    this.#maxItems = options.maxItems ?? 200;
    this.#gatherMs = options.gatherMs ?? 0;
  }

  /**
   * `gatherMs`: this item may wait this long instead of the batch's own (an item that is in no
   * hurry rides in the call of one that is, and costs a call of its own only when none comes).
   * The call goes when its most urgent item is due.
   */
  add(key: string, item: Item, gatherMs = this.#gatherMs): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      let waiting = this.#pending.get(key);
      if (waiting === undefined) {
        waiting = [];
        this.#pending.set(key, waiting);
      }
      waiting.push({ item, resolve, reject });
      if (this.#gatherMs > 0 && waiting.length >= this.#maxItems) {
        this.#pending.delete(key);
        this.#send(key, waiting);
        return;
      }
      this.#schedule(gatherMs);
    });
  }

  #schedule(gatherMs: number): void {
    if (gatherMs <= 0) {
      if (this.#scheduled) return;
      this.#scheduled = true;
      // setImmediate, not a microtask: it runs after every I/O callback of this poll phase.
      setImmediate(() => this.#flush());
      return;
    }
    const due = performance.now() + gatherMs;
    if (due >= this.#timerDue) return;
    clearTimeout(this.#timer);
    this.#timerDue = due;
    this.#timer = setTimeout(() => this.#flush(), gatherMs);
  }

  #flush(): void {
    const pending = this.#pending;
    this.#pending = new Map();
    this.#scheduled = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    for (const [key, waiting] of pending) {
      for (let start = 0; start < waiting.length; start += this.#maxItems) {
        this.#send(key, waiting.slice(start, start + this.#maxItems));
      }
    }
  }

  #send(key: string, batch: Waiting<Item, Result>[]): void {
    this.#run(
      key,
      batch.map((w) => w.item),
    ).then(
      (results) => {
        if (results.length !== batch.length) {
          const error = new Error(`batched call answered ${results.length} of ${batch.length} items`);
          for (const w of batch) w.reject(error);
          return;
        }
        batch.forEach((w, i) => w.resolve(results[i] as Result));
      },
      (error: unknown) => {
        for (const w of batch) w.reject(error);
      },
    );
  }
}

interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}
