import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/** `country`: the ISO country the number belongs to, when it has one (not for +800 and other non-geographic codes). */
export type PhoneResult = { ok: true; e164: string; country: CountryCode | undefined } | { ok: false; reason: string };

/** E.164's form: `+`, a country code that does not start with 0, 7 to 15 digits in all. Whether it is a number is the plan's to say. */
export const E164_FORM = /^\+[1-9]\d{6,14}$/;

/**
 * The code of a recipient number toE164 refused: PHONE_NOT_IN_PLAN when it has E.164's form (what
 * a pattern can check) but its country's numbering plan has no such number (what only
 * libphonenumber's data can say), else OPTION_INVALID.
 */
export function phoneRefusalCode(raw: string): 'PHONE_NOT_IN_PLAN' | 'OPTION_INVALID' {
  return E164_FORM.test(raw) ? 'PHONE_NOT_IN_PLAN' : 'OPTION_INVALID';
}

/**
 * A recipient number in E.164 (`+447700900123`). Meta prepends the sender's own country code
 * to numbers without `+`, so anything we cannot make international is refused here rather
 * than sent to the wrong person.
 */
export function toE164(raw: string, defaultCountry?: CountryCode): PhoneResult {
  const trimmed = raw.trim();
  if (trimmed === '') return { ok: false, reason: 'phone number is empty' };
  const international = /^00\d/.test(trimmed) ? `+${trimmed.slice(2)}` : trimmed;
  // extract: false — the cell must be a number (spaces, dashes and brackets allowed), not
  // text containing one; it is also a third cheaper, which counts at 100,000 rows.
  const parsed = parsePhoneNumberFromString(
    international,
    defaultCountry === undefined ? { extract: false } : { extract: false, defaultCountry },
  );
  if (parsed === undefined) {
    // Only digits (and the separators people write) lack just the country code; letters or
    // other signs are not a number at all, and saying "no country code" would mislead.
    const digitsOnly = /^[\d\s().\-/]+$/.test(trimmed) && /\d/.test(trimmed);
    return {
      ok: false,
      reason:
        !international.startsWith('+') && digitsOnly
          ? `"${trimmed}" has no country code: write it as +<country code><number>`
          : `"${trimmed}" is not a phone number: write it as +<country code><number>`,
    };
  }
  if (!parsed.isValid())
    return { ok: false, reason: `"${trimmed}" is not a valid number for ${parsed.country ?? `+${parsed.countryCallingCode}`}` };
  return { ok: true, e164: parsed.number, country: parsed.country };
}
