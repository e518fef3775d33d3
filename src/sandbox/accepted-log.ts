import type { AsyncFailure } from './async-failures.js';
import type { UnknownUserFailure } from './unknown-user.js';
import { WINDOW_MS } from './throughput-limiter.js';

/**
 * Every message the sandbox accepted, in order, plus the busiest sliding second seen. The
 * log is append-only and ordered by `receivedAt`, so the sliding window is just an index
 * into it that moves forward: O(1) per acceptance, no extra memory.
 */
export interface AcceptedMessage {
  wamid: string;
  phoneNumberId: string;
  /** The recipient exactly as sent: `to`, or `recipient` (a user ID) when the send had no `to`. */
  to: string;
  /** The recipient's phone digits; '' when the send named a user ID the sandbox never issued. */
  waId: string;
  /** Set only when the send was addressed by `recipient` (a business-scoped user ID): that ID. */
  recipientUserId?: string;
  /** ms since the epoch. */
  receivedAt: number;
  /** The parsed request JSON as received. */
  body: unknown;
  /** Set when it came through the Marketing Messages API (`/marketing_messages`); absent: `/messages`. */
  endpoint?: 'marketing_messages';
  /** Set when Meta would report this accepted send `failed` by webhook (and with which code). */
  failure?: AsyncFailure | UnknownUserFailure;
  /** Answered `held_for_quality_assessment`: its statuses come this many ms later (or only `failed` 132015, when dropped). */
  heldForMs?: number;
  /** A template's category as the catalogue has it (MARKETING, UTILITY…): its statuses' `pricing.category`. */
  category?: string;
  /** The Graph API version the send was served as (24 for v24.0): its statuses' shape follows it. */
  apiMajor?: number;
}

export type AcceptedListener = (message: AcceptedMessage) => void;

export class AcceptedLog {
  private messages: AcceptedMessage[] = [];
  private windowStart = 0;
  private busiest = 0;
  private total = 0;
  private readonly listeners = new Set<AcceptedListener>();

  /**
   * `retain`: keep only about this many of the newest messages (between `retain` and twice
   * that), so a sandbox running for days or a soak of millions of sends does not grow without
   * end; counts and the busiest second still cover every message. Default: keep all.
   */
  constructor(
    private readonly onListenerError: (error: unknown) => void,
    private readonly retain = Number.POSITIVE_INFINITY,
  ) {}

  /** The messages kept (all of them unless `retain` was given), oldest first. */
  get all(): readonly AcceptedMessage[] {
    return this.messages;
  }

  /** Every message accepted since the last reset, kept or not. */
  get count(): number {
    return this.total;
  }

  /** Max accepted messages in any 1000 ms window, across all phone numbers. */
  get busiestSecond(): number {
    return this.busiest;
  }

  record(message: AcceptedMessage): void {
    this.messages.push(message);
    this.total++;
    const cutoff = message.receivedAt - WINDOW_MS;
    while ((this.messages[this.windowStart]?.receivedAt ?? Infinity) <= cutoff) this.windowStart++;
    this.busiest = Math.max(this.busiest, this.messages.length - this.windowStart);
    if (this.messages.length >= 2 * this.retain) {
      // Never past the sliding second's start: the busiest second still counts those.
      const dropped = Math.min(this.messages.length - this.retain, this.windowStart);
      this.messages.splice(0, dropped);
      this.windowStart -= dropped;
    }
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
    this.total = 0;
  }
}
