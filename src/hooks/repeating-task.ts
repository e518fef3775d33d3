/** How often a step that keeps failing is reported (Redis away for an hour must not write a line a second). */
const REPORT_EVERY_MS = 30_000;

/**
 * Runs `step` again and again until stopped, waiting between runs as long as the step answers
 * (ms; 0 = at once). A step that throws is reported (at most every 30 s) and retried after
 * `errorWaitMs` (Redis away for a while must not end the loop). `stop()` ends the wait at once and resolves when the step
 * under way has finished. With `ready` (whether its connection takes commands), the step waits while it says no, and a
 * failure while it says no is not reported: Redis away is expected, and `serve` says so once on its own connection.
 */
export class RepeatingTask {
  readonly #step: () => Promise<number>;
  readonly #onError: (error: unknown) => void;
  readonly #errorWaitMs: number;
  #stopped = false;
  #wake: (() => void) | undefined;
  #running: Promise<void> | undefined;
  readonly #ready: (() => boolean) | undefined;
  #reportedAt = -Infinity;

  constructor(step: () => Promise<number>, onError: (error: unknown) => void, errorWaitMs = 1000, ready?: () => boolean) {
    this.#step = step;
    this.#onError = onError;
    this.#errorWaitMs = errorWaitMs;
    this.#ready = ready;
  }

  start(): void {
    this.#running ??= this.#loop();
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Stops; resolves once the step under way has finished (at most `boundMs` later, if given: a step never waited on forever). */
  async stop(boundMs?: number): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    if (this.#running === undefined) return;
    if (boundMs === undefined) return this.#running;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#running, new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)))]);
    clearTimeout(timer);
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      let waitMs: number;
      try {
        waitMs = this.#ready?.() === false ? this.#errorWaitMs : await this.#step();
      } catch (error) {
        if (!this.#stopped && this.#ready?.() !== false && Date.now() - this.#reportedAt >= REPORT_EVERY_MS) {
          this.#reportedAt = Date.now();
          this.#onError(error);
        }
        waitMs = this.#errorWaitMs;
      }
      if (waitMs > 0 && !this.#stopped) await this.#sleep(waitMs);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}
