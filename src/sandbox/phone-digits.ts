/**
 * The `to` field as Meta reads it (reference §1.2): digits with an optional leading `+` and
 * the separators people type (spaces, `-`, `(`, `)`). The sandbox keys windows, pair limits
 * and `wa_id` on the bare digits, so "+44 7700 900123" and "447700900123" are one user.
 * Meta would prepend the business number's country code to a number without `+`; the
 * sandbox has no business number, so it takes the digits as written.
 */
const ALLOWED = /^\+?[\d\s\-()]+$/;
const SEPARATORS = /[\s\-()+]/g;

export const MIN_DIGITS = 7;
export const MAX_DIGITS = 15;

/** The digits of a phone number, or undefined when it is not one Meta would accept. */
export function phoneDigits(value: string): string | undefined {
  if (!ALLOWED.test(value)) return undefined;
  const digits = value.replace(SEPARATORS, '');
  return digits.length >= MIN_DIGITS && digits.length <= MAX_DIGITS ? digits : undefined;
}
