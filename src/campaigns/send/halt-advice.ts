/**
 * What an operator does about a halting code that Meta's own words leave unclear: appended to
 * the campaign's pause reason. The Marketing Messages API's codes follow the reading of
 * reference §3 (134100–134103 added for it in v23; the meanings are a BSP's compilation).
 */
const ADVICE: ReadonlyMap<number, string> = new Map([
  [131055, 'the Marketing Messages API takes MARKETING templates only: send this template through /messages (drop --endpoint)'],
  [134100, 'the Marketing Messages API takes MARKETING templates only: send this template through /messages (drop --endpoint)'],
  [134101, 'the template is still syncing to the Marketing Messages API (about 10 minutes after approval): wait, then resume'],
  [
    134102,
    'the business is not eligible for or not onboarded to the Marketing Messages API: finish its onboarding in WhatsApp Manager ' +
      '(accept its terms for the business portfolio), or send through /messages (a new campaign without --endpoint)',
  ],
  [
    134103,
    'the Marketing Messages API refused this business: check its Marketing Messages onboarding in WhatsApp Manager, ' +
      'or send through /messages (a new campaign without --endpoint)',
  ],
  [131063, 'marketing through /messages is turned off for this account: send with --endpoint marketing-messages'],
]);

/** The pause reason: Meta's details, then what to do when this code needs saying. */
export function haltReason(metaCode: number | undefined, detail: string): string {
  const advice = metaCode === undefined ? undefined : ADVICE.get(metaCode);
  return advice === undefined ? detail : `${detail} (${advice})`;
}
