import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * The sandbox's business-scoped user IDs (BSUIDs, reference cloud-api-2026.md §4): Meta gives
 * every user one per business portfolio, ISO 3166 alpha-2 country + `.` + digits
 * (`US.13491208655302741918`). The sandbox plays one portfolio, so a user's ID is made from
 * their phone alone: stable across runs and restarts, and different for every phone.
 */
export function sandboxUserId(waId: string): string {
  let userId = known.get(waId);
  if (userId === undefined) {
    // Bounded: a long benchmark run reaches millions of recipients.
    if (known.size >= MAX_KNOWN) known.clear();
    userId = userIdOf(waId);
    known.set(waId, userId);
  }
  return userId;
}

/** Made once per phone: parsing a number costs more than the statuses of a send at 3,500 messages/s can spare. */
const known = new Map<string, string>();
const MAX_KNOWN = 100_000;

function userIdOf(waId: string): string {
  const parsed = parsePhoneNumberFromString(`+${waId}`);
  // A number no country claims for sure (a test range) takes its calling code's first country.
  const country = parsed?.country ?? parsed?.getPossibleCountries()[0] ?? 'ZZ';
  const hash = createHash('sha256').update(`sandbox-bsuid:${waId}`).digest();
  // 20 digits, as Meta's examples have.
  const digits = (hash.readBigUInt64BE(0) % 10n ** 20n).toString().padStart(20, '0');
  return `${country}.${digits}`;
}
