import { createHash } from 'node:crypto';
import { DigestSet } from './digest-set.js';

/**
 * Counts accepted sends that repeat an earlier accepted one: same phone number, same
 * recipient, and the same `biz_opaque_callback_data` when the send has one (campaign
 * workers put their row id there, so it is the send's identity), else the same template or
 * text content. This is the number an at-least-once pipeline must keep at zero across
 * crashes and retries, measured where it matters: at the API, not in our own bookkeeping.
 *
 * The recipient is its normalised digits (waId), so "+44 7700 900123" and "447700900123"
 * are one user, as they are to Meta. Each key is kept as the first 64 bits of its SHA-256
 * digest, in a DigestSet: 8 bytes per accepted send however long the template, and no object
 * for the garbage collector, so a send costs the same after 10M sends as after the first (the
 * sandbox is also the benchmarks' receiver: its own slowdown would read as the client's). Two
 * different sends share 64 bits with a chance of about 3 in a million over 10M sends.
 */
export class DuplicateSends {
  private readonly seen = new DigestSet();
  private repeats = 0;

  get duplicates(): number {
    return this.repeats;
  }

  /** Records one accepted send (a validated body of `type`); true when it repeats an earlier one. */
  record(phoneNumberId: string, waId: string, type: string, body: unknown): boolean {
    const key = createHash('sha256')
      .update(identity(phoneNumberId, waId, type, body))
      .digest();
    if (this.seen.add(key.readUInt32BE(0), key.readUInt32BE(4))) return false;
    this.repeats += 1;
    return true;
  }

  reset(): void {
    this.seen.clear();
    this.repeats = 0;
  }
}

function identity(phoneNumberId: string, waId: string, type: string, body: unknown): string {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const callbackData = fields['biz_opaque_callback_data'];
  // The tags keep a callback string from colliding with a content JSON that spells the same.
  const content = typeof callbackData === 'string' ? `cb:${callbackData}` : `${type}:${canonicalJson(fields[type])}`;
  return JSON.stringify([phoneNumberId, waId, content]);
}

/** JSON with object keys sorted, so the same content serialised in another key order matches. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
