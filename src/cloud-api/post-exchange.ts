import type { Dispatcher } from 'undici';

/** A request's answer: its status and its body as text. */
export interface PostAnswer {
  statusCode: number;
  text: string;
}

/**
 * When a request's write to its socket ended (performance.now()'s clock): the one moment its
 * bytes cannot have left after. The write usually takes a few µs; a pause of the process in it
 * (another process on the core, a garbage collection) stretches it to several ms, and the bytes
 * may have left anywhere in it.
 */
export interface RequestWrite {
  endedAt: number;
}

/**
 * One POST through `dispatcher`, answered with its status and body text. Driven through
 * dispatch() with a handler of its own rather than undici's request(): that one wraps each
 * answer in a stream and an async resource, about a tenth of the CPU of a paced message.
 * `onWritten` is called once undici has written the request to a socket, with when the write
 * ended: after any wait for a free or new connection, which an event-loop stall can stretch.
 * The caller's own clock cannot see that wait; this is the one place that can. Failures reject
 * with undici's own errors, as request() would.
 */
export function postExchange(
  dispatcher: Dispatcher,
  options: Omit<Dispatcher.DispatchOptions, 'method'>,
  onWritten?: (write: RequestWrite) => void,
): Promise<PostAnswer> {
  return new Promise<PostAnswer>((resolve, reject) => {
    dispatcher.dispatch({ ...options, method: 'POST' }, new ExchangeHandler(resolve, reject, onWritten));
  });
}

/** The callbacks of undici's handler API that it still drives (as request() uses them). */
class ExchangeHandler {
  readonly #resolve: (answer: PostAnswer) => void;
  readonly #reject: (error: Error) => void;
  readonly #onWritten: ((write: RequestWrite) => void) | undefined;
  readonly #chunks: Buffer[] = [];
  #statusCode = 0;
  #writeStartedAt: number | undefined;
  #writeReported = false;

  constructor(
    resolve: (answer: PostAnswer) => void,
    reject: (error: Error) => void,
    onWritten: ((write: RequestWrite) => void) | undefined,
  ) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#onWritten = onWritten;
  }

  /** Called right before the request's first byte is written. */
  onConnect(): void {
    if (this.#onWritten !== undefined) this.#writeStartedAt = performance.now();
  }
  /** Called once the whole request is handed to the socket (a body of one buffer: in the same synchronous write as onConnect). */
  onRequestSent(): void {
    this.#reportWrite(performance.now());
  }
  onHeaders(statusCode: number): boolean {
    this.#reportWrite(this.#writeStartedAt);
    this.#statusCode = statusCode;
    return true;
  }
  onData(chunk: Buffer): boolean {
    this.#chunks.push(chunk);
    return true;
  }
  onComplete(): void {
    this.#resolve({ statusCode: this.#statusCode, text: Buffer.concat(this.#chunks).toString('utf8') });
  }
  onError(error: Error): void {
    this.#reportWrite(this.#writeStartedAt);
    this.#reject(error);
  }
  onUpgrade(): void {
    this.#reject(new Error('the server upgraded the connection of a POST'));
  }
  /**
   * Tells the caller once. A dispatcher that never says the write ended (undici's MockAgent)
   * is taken at the write's start, when the answer or an error comes.
   */
  #reportWrite(endedAt: number | undefined): void {
    if (this.#onWritten === undefined || this.#writeReported || endedAt === undefined) return;
    this.#writeReported = true;
    this.#onWritten({ endedAt });
  }
}
