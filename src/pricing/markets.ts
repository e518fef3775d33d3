import { getCountries, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * Meta's pricing markets: the rate of a delivered template depends on the market of the
 * recipient's number (reference cloud-api-2026.md §1). Meta publishes the mapping as the
 * "Country Calling Codes and Regional Rate Mapping" CSV beside its rate cards, at
 * https://developers.facebook.com/docs/whatsapp/pricing#rates (read 2026-11-26; no copy of the
 * file is in the project's references). This table follows that mapping as it stands from
 * 2026-10-01: the markets Meta lists on their own (including those made standalone on
 * 2025-10-01 and 2026-10-01, §1), the "Rest of …" regions, and "Other" for every country not
 * listed. It is keyed by ISO country, as libphonenumber-js places a number, because +1 and +7
 * span several markets. Meta also split markets out of "Rest of" regions on 2026-07-01 without
 * the reference naming them: compare this table with Meta's current file before relying on a
 * regional rate, and add a country here when Meta lists it on its own.
 */
export const OTHER_MARKET = 'Other';

const STANDALONE: Record<string, string> = {
  AR: 'Argentina',
  BD: 'Bangladesh',
  BR: 'Brazil',
  CL: 'Chile',
  CO: 'Colombia',
  DE: 'Germany',
  EG: 'Egypt',
  ES: 'Spain',
  FR: 'France',
  GB: 'United Kingdom',
  // Guernsey, Jersey and the Isle of Man share +44, which Meta maps to the United Kingdom.
  GG: 'United Kingdom',
  JE: 'United Kingdom',
  IM: 'United Kingdom',
  ID: 'Indonesia',
  IL: 'Israel',
  IN: 'India',
  IQ: 'Iraq',
  IT: 'Italy',
  KW: 'Kuwait',
  KZ: 'Kazakhstan',
  LK: 'Sri Lanka',
  MA: 'Morocco',
  MX: 'Mexico',
  MY: 'Malaysia',
  NG: 'Nigeria',
  NL: 'Netherlands',
  NP: 'Nepal',
  OM: 'Oman',
  PE: 'Peru',
  PK: 'Pakistan',
  RU: 'Russia',
  SA: 'Saudi Arabia',
  TR: 'Turkey',
  AE: 'United Arab Emirates',
  UA: 'Ukraine',
  ZA: 'South Africa',
};

// prettier-ignore
const REGIONS: Record<string, readonly string[]> = {
  'North America': ['US', 'CA'],
  'Rest of Africa': [
    'DZ', 'AO', 'BJ', 'BW', 'BF', 'BI', 'CM', 'TD', 'CG', 'CD', 'ER', 'ET', 'GA', 'GM', 'GH', 'GW', 'CI', 'KE', 'LS', 'LR',
    'LY', 'MG', 'MW', 'ML', 'MR', 'MZ', 'NA', 'NE', 'RW', 'SN', 'SL', 'SO', 'SS', 'SD', 'SZ', 'TZ', 'TG', 'TN', 'UG', 'ZM', 'ZW',
  ],
  'Rest of Asia Pacific': [
    'AF', 'AU', 'KH', 'CN', 'HK', 'JP', 'LA', 'MN', 'NZ', 'PG', 'PH', 'SG', 'TW', 'TJ', 'TH', 'TM', 'UZ', 'VN',
  ],
  'Rest of Central & Eastern Europe': [
    'AL', 'AM', 'AZ', 'BY', 'BG', 'HR', 'CZ', 'GE', 'GR', 'HU', 'LV', 'LT', 'MK', 'MD', 'PL', 'RO', 'RS', 'SK', 'SI',
  ],
  'Rest of Latin America': ['BO', 'CR', 'DO', 'EC', 'SV', 'GT', 'HT', 'HN', 'JM', 'NI', 'PA', 'PY', 'PR', 'UY', 'VE'],
  'Rest of Middle East': ['BH', 'JO', 'LB', 'QA', 'YE'],
  'Rest of Western Europe': ['AT', 'BE', 'DK', 'FI', 'IE', 'NO', 'PT', 'SE', 'CH'],
};

const MARKET_OF_COUNTRY: ReadonlyMap<string, string> = new Map([
  ...Object.entries(STANDALONE),
  ...Object.entries(REGIONS).flatMap(([market, countries]) => countries.map((country) => [country, market] as [string, string])),
]);

/** The market of an ISO country (as libphonenumber-js or a BSUID's prefix names it); `Other` when Meta lists it in none. */
export function marketOfCountry(country: string | undefined): string {
  return (country === undefined ? undefined : MARKET_OF_COUNTRY.get(country.toUpperCase())) ?? OTHER_MARKET;
}

/**
 * The market of a recipient: a number (E.164, or the digits of a webhook's `recipient_id`), or
 * a business-scoped user ID, which starts with the user's ISO country (`US.1349…`).
 */
export function marketOfRecipient(recipient: string): string {
  const country = countryOfRecipient(recipient);
  if (country !== undefined) return marketOfCountry(country);
  // A number libphonenumber-js cannot place (a range it does not know yet): Meta goes by the
  // calling code, which names one market when every country sharing it is in that market.
  const code = parsePhoneNumberFromString(`+${recipient.replace(/^\+/, '')}`)?.countryCallingCode;
  return (code === undefined ? undefined : marketOfCallingCode().get(code)) ?? OTHER_MARKET;
}

let byCallingCode: Map<string, string> | undefined;

/** Calling code → market, for the codes whose countries all share one market (44: United Kingdom; not 1 or 7). */
function marketOfCallingCode(): Map<string, string> {
  if (byCallingCode !== undefined) return byCallingCode;
  const markets = new Map<string, Set<string>>();
  for (const country of getCountries()) {
    const code = getCountryCallingCode(country);
    markets.set(code, (markets.get(code) ?? new Set()).add(marketOfCountry(country)));
  }
  byCallingCode = new Map([...markets].flatMap(([code, set]) => (set.size === 1 ? [[code, [...set][0] ?? OTHER_MARKET]] : [])));
  return byCallingCode;
}

/** The ISO country of a recipient (number or business-scoped user ID); undefined when it has none. */
export function countryOfRecipient(recipient: string): string | undefined {
  const bsuid = /^([A-Z]{2})\./.exec(recipient);
  if (bsuid !== null) return bsuid[1];
  const digits = recipient.replace(/^\+/, '');
  if (!/^\d{6,15}$/.test(digits)) return undefined;
  return parsePhoneNumberFromString(`+${digits}`)?.country;
}

/** Every market the table names, `Other` last: a rate card that covers these covers every number. */
export function knownMarkets(): string[] {
  return [...new Set(MARKET_OF_COUNTRY.values())].sort().concat(OTHER_MARKET);
}
