import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * Whether an E.164 number belongs to the United States, as libphonenumber-js places it: +1
 * with a US area code. Canada and the other countries of the North American Numbering Plan
 * share +1 and are not the US; neither are US territories with their own ISO code (Puerto
 * Rico, Guam…), which Meta lists apart.
 */
export function isUsNumber(e164: string): boolean {
  if (!e164.startsWith('+1')) return false;
  return parsePhoneNumberFromString(e164)?.country === 'US';
}

let areaCodes: readonly string[] | undefined;

/**
 * The three-digit area codes libphonenumber-js gives to the US, found once by asking it about
 * one ordinary number in each of +1 200…999. For code that holds only the number's digits
 * (a Redis script), where the library cannot run.
 */
export function usAreaCodes(): readonly string[] {
  if (areaCodes === undefined) {
    const found: string[] = [];
    for (let code = 200; code <= 999; code++) if (isUsNumber(`+1${code}2345678`)) found.push(String(code));
    areaCodes = found;
  }
  return areaCodes;
}
