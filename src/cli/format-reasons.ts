import type { OptOutOrigin, SendOutcome } from '../campaigns/ingest/producer.js';
import { REJECTION_REASONS, type RejectionReason } from '../campaigns/rejection-reasons.js';
import { formatInstant, type DisplayZone } from '../campaigns/spec/display-zone.js';

const OPT_OUT_ORIGINS: Record<OptOutOrigin, string> = {
  '131050': 'Meta answered 131050 to an earlier send',
  keyword: 'they answered with an opt-out keyword',
  user_preferences: 'they stopped marketing messages in WhatsApp (user_preferences)',
  operator: 'an operator added them (`campaign optouts add`)',
};

/** The OPTED_OUT line names where each opt-out came from, not only Meta's 131050. */
function optedOutWhy(by: SendOutcome['optedOutBy']): string {
  const origins = (Object.keys(OPT_OUT_ORIGINS) as OptOutOrigin[])
    .filter((origin) => (by[origin] ?? 0) > 0)
    .map((origin) => `${by[origin] ?? 0}: ${OPT_OUT_ORIGINS[origin]}`);
  return (
    `the recipient stopped marketing messages from this business (${origins.join('; ')}); a ` +
    `MARKETING template or a --text message is not sent to them`
  );
}

/**
 * `send`'s lines for the rows it refused, one per reason with its count and why; OPTED_OUT
 * names where the opt-outs came from, MARKETING_CAP_WAIT when the last of its waits ends
 * (in `zone`, as the plan's times).
 */
export function reasonLines(summary: SendOutcome, zone: DisplayZone): string[] {
  return Object.entries(summary.byReason).map(([reason, count]) => {
    const why = reason === 'OPTED_OUT' ? optedOutWhy(summary.optedOutBy) : REJECTION_REASONS[reason as RejectionReason];
    const until =
      reason === 'MARKETING_CAP_WAIT' && summary.marketingCapUntil !== undefined
        ? `; the last of them may be sent a MARKETING template from ${formatInstant(summary.marketingCapUntil, zone)}`
        : '';
    return `  ${String(count).padStart(7)}  ${reason}: ${why}${until}`;
  });
}
