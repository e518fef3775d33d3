/** How stale a worker's view of "is this campaign paused?" may be before it asks Redis again. */
const HOLD_CHECK_MS = 250;

/**
 * A worker's view of which campaigns are paused or cancelled, for skipping their slots: cached
 * for HOLD_CHECK_MS (the claim itself always checks Redis, so this only saves slots). The read in
 * flight is cached too: a group's rows all ask at once, and one read answers them.
 */
export class HoldCache {
  readonly #read: (campaignId: string) => Promise<boolean>;
  readonly #held = new Map<string, { held: boolean | Promise<boolean>; at: number }>();

  constructor(read: (campaignId: string) => Promise<boolean>) {
    this.#read = read;
  }

  async isHeld(campaignId: string): Promise<boolean> {
    const cached = this.#held.get(campaignId);
    if (cached !== undefined && Date.now() - cached.at < HOLD_CHECK_MS) return cached.held;
    const reading = this.#read(campaignId);
    this.#held.set(campaignId, { held: reading, at: Date.now() });
    const held = await reading.catch((error: unknown) => {
      if (this.#held.get(campaignId)?.held === reading) this.#held.delete(campaignId);
      throw error;
    });
    if (this.#held.get(campaignId)?.held === reading) this.#held.set(campaignId, { held, at: Date.now() });
    return held;
  }

  /** This worker just paused the campaign (a halt, the brake, its template's hold). */
  markHeld(campaignId: string): void {
    this.#held.set(campaignId, { held: true, at: Date.now() });
  }
}
