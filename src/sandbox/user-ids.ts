import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * The sandbox's business-scoped user IDs (BSUIDs, reference cloud-api-2026.md §4): Meta gives
 * every user one per business portfolio, ISO 3166 alpha-2 country + `.` + digits
 * (`US.13491208655302741918`). The sandbox plays one portfolio, so a user's ID is made from
 * their phone alone: stable across runs and restarts, and different for every phone, until
 * Meta issues the user a new one (renewSandboxUserId).
 */
export function sandboxUserId(waId: string): string {
  const userId = byPhone.get(waId) ?? userIdOf(waId);
  // Set again even when known: a user seen often stays in the newer generation of both maps.
  byPhone.set(waId, userId);
  byUserId.set(userId, waId);
  return userId;
}

/**
 * The phone of a user ID the sandbox has issued (in a webhook, or to a test through
 * sandboxUserId), so a send addressed to the ID reaches the same user, with the same limits
 * and faults, as one addressed to the phone; undefined for an ID it never issued, or issued
 * so long ago (more than a few hundred thousand users since) that it forgot it. The ID is a
 * hash, so the phone cannot be worked out from it.
 */
export function phoneOfUserId(userId: string): string | undefined {
  return byUserId.get(userId);
}

/**
 * A map that forgets its oldest entries in bulk: when the newer generation is full it
 * becomes the older one, and the older is dropped. Bounded (a benchmark reaches millions of
 * recipients) without forgetting, all at once, what was issued a moment ago.
 */
class GenerationalMap {
  private newer = new Map<string, string>();
  private older = new Map<string, string>();

  constructor(private readonly generationSize: number) {}

  get(key: string): string | undefined {
    return this.newer.get(key) ?? this.older.get(key);
  }

  set(key: string, value: string): void {
    if (this.newer.size >= this.generationSize && !this.newer.has(key)) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, value);
  }
}

const GENERATION = 100_000;
/** Made once per phone: parsing a number costs more than the statuses of a send at 3,500 messages/s can spare. */
const byPhone = new GenerationalMap(GENERATION);
const byUserId = new GenerationalMap(GENERATION);

/**
 * Meta issues a user a new ID now and then (`POST /_sandbox/user-id-change` plays it, with
 * the `user_changed_user_id` system message): each phone's count of new IDs, so its ID is
 * still made from the phone alone, and every later status and message carries the new one.
 * Kept for the process, as the IDs are: the sandbox plays one portfolio, so every sandbox in
 * a process shares its users. Not bounded like the caches above: only that route adds to it.
 */
const reissues = new Map<string, number>();

/** Issues the user a new ID (their phone's next reissue) and answers the old one and the new. */
export function renewSandboxUserId(waId: string): { previous: string; current: string } {
  const previous = sandboxUserId(waId);
  reissues.set(waId, (reissues.get(waId) ?? 0) + 1);
  const current = userIdOf(waId);
  byPhone.set(waId, current);
  byUserId.set(current, waId);
  return { previous, current };
}

function userIdOf(waId: string): string {
  const parsed = parsePhoneNumberFromString(`+${waId}`);
  // A number no country claims for sure (a test range) takes its calling code's first country.
  const country = parsed?.country ?? parsed?.getPossibleCountries()[0] ?? 'ZZ';
  const reissue = reissues.get(waId) ?? 0;
  // A phone's first ID is made from the phone alone; each reissue adds its count.
  const hash = createHash('sha256')
    .update(reissue === 0 ? `sandbox-bsuid:${waId}` : `sandbox-bsuid:${waId}:${reissue}`)
    .digest();
  // 20 digits, as Meta's examples have.
  const digits = (hash.readBigUInt64BE(0) % 10n ** 20n).toString().padStart(20, '0');
  return `${country}.${digits}`;
}
