/** Meta's messaging limit counts unique users over a moving 24 h. */
export const REACH_WINDOW_MS = 24 * 3_600_000;

/** A feed held a new recipient back: the number's limit, the users reached in the 24 h, and when the oldest place frees. */
export interface LimitHeld {
  limit: number;
  reached: number;
  freesAt: number;
}
