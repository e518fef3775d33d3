import type { Dispatcher } from 'undici';

/** A request's answer: its status and its body as text. */
export interface PostAnswer {
  statusCode: number;
  text: string;
}

/**
 * One POST through `dispatcher`, answered with its status and body text. Driven through
 * dispatch() with a handler of its own rather than undici's request(): that one wraps each
 * answer in a stream and an async resource, about a tenth of the CPU of a paced message.
 * `onLeaving` is called at the moment undici writes the request to a socket: after any wait
 * for a free or new connection, which an event-loop stall can stretch. The caller's own
 * clock cannot see that wait; this is the one place that can. Failures reject with undici's
 * own errors, as request() would.
 */
export function postExchange(
  dispatcher: Dispatcher,
  options: Omit<Dispatcher.DispatchOptions, 'method'>,
  onLeaving?: () => void,
): Promise<PostAnswer> {
  return new Promise<PostAnswer>((resolve, reject) => {
    dispatcher.dispatch({ ...options, method: 'POST' }, new ExchangeHandler(resolve, reject, onLeaving));
  });
}

/** The callbacks of undici's handler API that it still drives (as request() uses them). */
class ExchangeHandler {
  readonly #resolve: (answer: PostAnswer) => void;
  readonly #reject: (error: Error) => void;
  readonly #onLeaving: (() => void) | undefined;
  readonly #chunks: Buffer[] = [];
  #statusCode = 0;

  constructor(resolve: (answer: PostAnswer) => void, reject: (error: Error) => void, onLeaving: (() => void) | undefined) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#onLeaving = onLeaving;
  }

  /** Called right before the request's first byte is written. */
  onConnect(): void {
    this.#onLeaving?.();
  }
  onHeaders(statusCode: number): boolean {
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
    this.#reject(error);
  }
  onUpgrade(): void {
    this.#reject(new Error('the server upgraded the connection of a POST'));
  }
}
