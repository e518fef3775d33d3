import type { Dispatcher } from 'undici';

/**
 * A dispatcher for one request that calls `onLeaving` at the moment undici writes it to a
 * socket: after any wait for a free or new connection, which an event-loop stall can stretch.
 * The caller's own clock cannot see that wait; this is the one place that can.
 */
export function dispatcherWithLeavingHook(dispatcher: Dispatcher, onLeaving: () => void): Dispatcher {
  const hooked = {
    dispatch: (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) =>
      dispatcher.dispatch(options, new LeavingHandler(handler as LegacyHandler, onLeaving)),
  };
  return hooked as unknown as Dispatcher;
}

/** The callbacks undici's request() handler has (the legacy handler API undici still drives it with). */
interface LegacyHandler {
  onConnect?(abort: (error?: Error) => void, context?: unknown): void;
  onError?(error: Error): void;
  onUpgrade?(statusCode: number, headers: unknown, socket: unknown): void;
  onResponseStarted?(): void;
  onHeaders?(statusCode: number, headers: unknown, resume: () => void, statusText: string): boolean;
  onData?(chunk: Buffer): boolean;
  onComplete?(trailers: unknown): void;
  onBodySent?(chunk: unknown): void;
  onRequestSent?(): void;
}

/** Forwards every callback; only onConnect (called right before the request's first byte is written) also tells the hook. */
class LeavingHandler implements LegacyHandler {
  readonly #inner: LegacyHandler;
  readonly #onLeaving: () => void;

  constructor(inner: LegacyHandler, onLeaving: () => void) {
    this.#inner = inner;
    this.#onLeaving = onLeaving;
  }

  onConnect(abort: (error?: Error) => void, context?: unknown): void {
    this.#onLeaving();
    this.#inner.onConnect?.(abort, context);
  }
  onError(error: Error): void {
    this.#inner.onError?.(error);
  }
  onUpgrade(statusCode: number, headers: unknown, socket: unknown): void {
    this.#inner.onUpgrade?.(statusCode, headers, socket);
  }
  onResponseStarted(): void {
    this.#inner.onResponseStarted?.();
  }
  onHeaders(statusCode: number, headers: unknown, resume: () => void, statusText: string): boolean {
    return this.#inner.onHeaders?.(statusCode, headers, resume, statusText) ?? true;
  }
  onData(chunk: Buffer): boolean {
    return this.#inner.onData?.(chunk) ?? true;
  }
  onComplete(trailers: unknown): void {
    this.#inner.onComplete?.(trailers);
  }
  onBodySent(chunk: unknown): void {
    this.#inner.onBodySent?.(chunk);
  }
  onRequestSent(): void {
    this.#inner.onRequestSent?.();
  }
}
