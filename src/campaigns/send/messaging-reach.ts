import type { MessagingLimit } from '../../config/number-settings.js';

/** Meta's messaging limit counts unique users over a moving 24 h. */
export const REACH_WINDOW_MS = 24 * 3_600_000;

/** A feed held a new recipient back: the number's limit, the users reached in the 24 h, and when the oldest place frees. */
export interface LimitHeld {
  limit: number;
  reached: number;
  freesAt: number;
}

/** How a feed counts Meta's messaging limit (src/redis/lua/README.md, "The messaging limit"). */
export interface FeedLimitOptions {
  /** The number's business portfolio (absent: `default`): its limit and its count are shared by all its numbers. */
  portfolio?: string;
  /**
   * The limit (unique users per moving 24 h) MESSAGING_LIMITS gives; absent: the portfolio's as
   * a worker or webhook last stored it. None known, or 'unlimited': nothing is counted.
   */
  messagingLimit?: MessagingLimit;
}
