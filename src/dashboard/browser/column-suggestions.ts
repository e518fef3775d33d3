/** Words a phone column's name holds, best first. */
const PHONE_WORDS = ['phone', 'mobile', 'msisdn', 'whatsapp', 'number'];

/** Lower case, letters and digits only: "Order ID" and "order_id" are both "orderid". */
export function normalise(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * The column for a variable: the same name, else the same but for case, else the same letters
 * and digits; null when none. Only a suggestion: the operator sees which and may change it.
 */
export function suggestColumn(name: string, header: readonly string[]): string | null {
  const exact = header.find((h) => h === name);
  if (exact !== undefined) return exact;
  const lower = header.find((h) => h.toLowerCase() === name.toLowerCase());
  if (lower !== undefined) return lower;
  const n = normalise(name);
  return header.find((h) => n !== '' && normalise(h) === n) ?? null;
}

/** The phone column: one named phone, else the first whose name holds phone, mobile, msisdn, whatsapp or number (in that order). */
export function guessPhoneColumn(header: readonly string[]): string | null {
  for (const word of PHONE_WORDS) {
    const found = header.find((h) => normalise(h) === word) ?? header.find((h) => normalise(h).includes(word));
    if (found !== undefined) return found;
  }
  return null;
}
