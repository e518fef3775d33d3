import type { AsyncFailure } from './async-failures.js';
import { WINDOW_MS } from './throughput-limiter.js';

/**
 * Every message the sandbox accepted, in order, plus the busiest sliding second seen. The
 * log is append-only and ordered by `receivedAt`, so the sliding window is just an index
 * into it that moves forward: O(1) per acceptance, no extra memory.
 */
export interface AcceptedMessage {
  wamid: string;
  phoneNumberId: string;
  /** `to` exactly as sent. */
  to: string;
  waId: string;
  /** ms since the epoch. */
  receivedAt: number;
  /** The parsed request JSON as received. */
  body: unknown;
  /** Set when Meta would report this accepted send `failed` by webhook (and with which code). */
  failure?: AsyncFailure;
}

export type AcceptedListener = (message: AcceptedMessage) => void;

export class AcceptedLog {
  private messages: AcceptedMessage[] = [];
  private windowStart = 0;
  private busiest = 0;
  private readonly listeners = new Set<AcceptedListener>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  get all(): readonly AcceptedMessage[] {
    return this.messages;
  }

  /** Max accepted messages in any 1000 ms window, across all phone numbers. */
  get busiestSecond(): number {
    return this.busiest;
  }

  record(message: AcceptedMessage): void {
    this.messages.push(message);
    const cutoff = message.receivedAt - WINDOW_MS;
    while ((this.messages[this.windowStart]?.receivedAt ?? Infinity) <= cutoff) this.windowStart++;
    this.busiest = Math.max(this.busiest, this.messages.length - this.windowStart);
    for (const listener of this.listeners) {
      // A failing listener (e.g. a webhook sender) must not turn an accepted send into a 500.
      try {
        listener(message);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  /** Returns the function that removes the listener. */
  subscribe(listener: AcceptedListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Forgets messages and the busiest second; listeners stay subscribed. */
  reset(): void {
    this.messages = [];
    this.windowStart = 0;
    this.busiest = 0;
  }
}
