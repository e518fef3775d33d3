/**
 * Meta's (business number, recipient) pair rate limit (reference §4, code 131056): about one
 * message per 6 s to the same user, with bursts of up to 45 "borrowed from future quota",
 * after which the pair must wait what the burst would have taken at that pace (Meta: "a
 * burst of 20 requires a ~2-minute wait"). A token bucket gets this wrong: it hands a token
 * back every 6 s, so a pair that just burst 45 could send again 6 s later.
 *
 * Modelled as a debt: every send pushes the pair's paid-until time `refillMs` further (from
 * now, when the debt was already paid). A send goes through when the debt is paid, which
 * also forgets what was borrowed, or while fewer than `burst` sends have been borrowed since
 * it last was; otherwise it is refused and changes nothing. An idle pair costs nothing until
 * it is seen again.
 */
export interface PairLimitSettings {
  burst: number;
  refillMs: number;
}

interface Debt {
  /** When every send so far is paid for at one per refillMs. */
  paidUntil: number;
  /** Sends since the debt was last fully paid (the one that found it paid included). */
  borrowed: number;
}

/** A paid debt is the same as no debt; sweeping those keeps a 1M-recipient run small. */
const SWEEP_EVERY = 10_000;
const SWEEP_ABOVE = 50_000;

export class PairLimiter {
  private readonly debts = new Map<string, Debt>();
  private takesSinceSweep = 0;

  constructor(private readonly settings: PairLimitSettings) {}

  /** Records one send for this pair if the limit allows it; false means "answer 131056". */
  tryTake(phoneNumberId: string, recipient: string, now: number): boolean {
    const key = `${phoneNumberId}:${recipient}`;
    const debt = this.debts.get(key);
    if (debt === undefined) {
      this.debts.set(key, { paidUntil: now + this.settings.refillMs, borrowed: 1 });
      this.maybeSweep(now);
      return true;
    }
    if (now >= debt.paidUntil) {
      debt.paidUntil = now + this.settings.refillMs;
      debt.borrowed = 1;
      return true;
    }
    if (debt.borrowed >= this.settings.burst) return false;
    debt.paidUntil += this.settings.refillMs;
    debt.borrowed += 1;
    return true;
  }

  reset(): void {
    this.debts.clear();
    this.takesSinceSweep = 0;
  }

  private maybeSweep(now: number): void {
    if (++this.takesSinceSweep < SWEEP_EVERY || this.debts.size < SWEEP_ABOVE) return;
    this.takesSinceSweep = 0;
    for (const [key, debt] of this.debts) {
      if (now >= debt.paidUntil) this.debts.delete(key);
    }
  }
}
