/** Meta's messaging limit counts unique users over a moving 24 h. */
export const REACH_WINDOW_MS = 24 * 3_600_000;

/** A feed held a new recipient back: the number's limit, the users reached in the 24 h, and when the oldest place frees. */
export interface LimitHeld {
  limit: number;
  reached: number;
  freesAt: number;
}

/**
 * The in-memory twin of the feed script's reach set (src/redis/lua/feed.lua): wa_id → ms
 * last fed. A feed asks, row by row, whether a recipient may be fed under the limit: one
 * reached in the last 24 h, or with an open customer-service window, takes no new place.
 */
export class MessagingReach {
  readonly #reached: Map<string, number>;
  readonly #limit: number;
  readonly #now: number;
  #places: number;
  #heldAny = false;

  /** Drops recipients reached 24 h ago or more, then counts the places left under `limit`. */
  constructor(reached: Map<string, number>, limit: number, now: number) {
    for (const [waId, at] of reached) if (at <= now - REACH_WINDOW_MS) reached.delete(waId);
    this.#reached = reached;
    this.#limit = limit;
    this.#now = now;
    this.#places = limit - reached.size;
  }

  /** Whether a row to `phone` may be fed now; counts its recipient when it is fed. */
  mayFeed(phone: string, windowOpen: (waId: string) => boolean): boolean {
    const waId = phone.replace(/^\+/, '');
    if (this.#reached.has(waId)) {
      this.#reached.set(waId, this.#now);
      return true;
    }
    if (windowOpen(waId)) return true;
    if (this.#places <= 0) {
      this.#heldAny = true;
      return false;
    }
    this.#places--;
    this.#reached.set(waId, this.#now);
    return true;
  }

  /** Set when this feed held a recipient back. */
  held(): LimitHeld | undefined {
    if (!this.#heldAny) return undefined;
    let oldest = this.#now;
    for (const at of this.#reached.values()) oldest = Math.min(oldest, at);
    return { limit: this.#limit, reached: this.#limit - this.#places, freesAt: oldest + REACH_WINDOW_MS };
  }
}
