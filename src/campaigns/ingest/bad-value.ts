/** At most this much of a value we refuse is kept anywhere: reports, rejects files, Redis. */
export const BAD_VALUE_MAX_CHARS = 200;

/**
 * A refused value, cut to BAD_VALUE_MAX_CHARS with its length said, so one hostile cell
 * (a 5 MB "phone number") cannot fill Redis or a report. Never cuts a surrogate pair in half.
 */
export function boundedBadValue(value: string): string {
  if (value.length <= BAD_VALUE_MAX_CHARS) return value;
  let end = BAD_VALUE_MAX_CHARS - 1;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${value.slice(0, end)}… (${value.length.toLocaleString('en-US')} characters)`;
}
