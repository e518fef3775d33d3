import type { OptOutSource } from '../ledger.js';

/** Where an opt-out came from, as the summary counts them: Meta's answer 131050 unless the user or an operator said it. */
export type OptOutOrigin = '131050' | 'keyword' | 'user_preferences' | 'operator';

export function optOutOrigin(source: OptOutSource | undefined): OptOutOrigin {
  return source?.via ?? '131050';
}

/** Why an OPTED_OUT row is not sent, and since when (stored on the row). */
export function optedOutDetail(source: OptOutSource | undefined, kind: 'template' | 'text'): string {
  const day = source === undefined ? '' : new Date(source.at).toISOString().slice(0, 10);
  const learnt =
    source === undefined || source.at === 0
      ? ''
      : source.via === 'keyword'
        ? ` (they answered with an opt-out keyword on ${day})`
        : source.via === 'user_preferences'
          ? ` (they stopped marketing messages in WhatsApp on ${day})`
          : source.via === 'operator'
            ? ` (added by \`campaign optouts add\` on ${day})`
            : ` (Meta answered 131050 to campaign ${source.campaignId} row ${source.row} on ${day})`;
  const what =
    kind === 'text'
      ? 'a text campaign (its words could be marketing, and an opt-out keyword itself opens a 24-hour window)'
      : 'a MARKETING template';
  return `the recipient stopped marketing messages from this business${learnt}; this is ${what}, so it is not sent`;
}
