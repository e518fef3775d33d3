/** What one confirmInDoubt call decided. */
export interface InDoubtDecisions {
  /** Back in the backlog, to be sent once more. */
  resent: number;
  /** Left `unknown`: they may have been delivered. */
  unknown: number;
  /** `cancelled` or `expired`: they never went out, and their campaign ended meanwhile. */
  ended: number;
  /** `held` rows whose HELD_PATIENCE_HOURS ran out with no status webhook: now `unknown`. */
  heldExpired: number;
  /** Campaigns whose last row this call answered. */
  completedCampaigns: string[];
}
