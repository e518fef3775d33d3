import type { MessagingLimitAnswer, PlanAnswer } from './api-answers.js';
import { utcTime } from './utc-time.js';

/** A time of the plan as the pages write times; `?` when the answer has none. */
export function when(iso: string | null | undefined): string {
  return iso ? utcTime(iso) : '?';
}

export function limitLine(limit: MessagingLimitAnswer | null | undefined): string {
  if (!limit) return 'no messaging limit applies (a text goes only to open conversations)';
  if (limit.limit === null) return `messaging limit of portfolio ${limit.portfolio}: not known yet`;
  if (limit.limit === 'unlimited') return 'messaging limit: unlimited';
  const per = `${limit.limit} unique users per 24 h, ${limit.reached} reached`;
  return limit.over > 0
    ? `messaging limit: ${limit.over} of ${limit.recipients} recipients past it (${per}): they wait`
    : `messaging limit: within it (${per})`;
}

/**
 * Where the cost's rates come from: the card's file name (never the server's path), or the
 * example card the package ships (`exampleCard`, its file name), whose rates are not Meta's.
 */
export function ratesFrom(card: string | null | undefined, exampleCard: string): string {
  const name = typeof card === 'string' ? (card.split(/[\\/]/).pop() ?? '') : '';
  if (name === exampleCard)
    return "rates from the example rate card shipped with campaign-worker, not Meta's rates: set RATE_CARD_FILE (docs/costs.md)";
  if (name) return `rates from ${name} (RATE_CARD_FILE)`;
  return "rates from the rate card in RATE_CARD_FILE, else the example card shipped with campaign-worker (not Meta's rates)";
}

/** The estimated cost and what priced it, as `campaign send` says it. */
export function costLine(plan: PlanAnswer, exampleCard: string): string {
  if (plan.cost && plan.cost.total !== undefined)
    return `estimated cost: ${plan.cost.total} ${plan.cost.currency ?? ''} at most; ${ratesFrom(plan.rateCard, exampleCard)}`;
  return `estimated cost: not known${plan.costReason ? ` (${plan.costReason})` : ''}`;
}
