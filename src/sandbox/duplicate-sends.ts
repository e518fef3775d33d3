import { createHash } from 'node:crypto';

/**
 * Counts accepted sends that repeat an earlier accepted one: same phone number, same
 * recipient, and the same `biz_opaque_callback_data` when the send has one (campaign
 * workers put their row id there, so it is the send's identity), else the same template or
 * text content. This is the number an at-least-once pipeline must keep at zero across
 * crashes and retries, measured where it matters: at the API, not in our own bookkeeping.
 *
 * The recipient is its normalised digits (waId), so "+44 7700 900123" and "447700900123"
 * are one user, as they are to Meta. Each key is kept as a SHA-256 digest: a fixed 43
 * characters per accepted send however long the template, which keeps a 1M-send run small.
 */
export class DuplicateSends {
  private readonly seen = new Set<string>();
  private repeats = 0;

  get duplicates(): number {
    return this.repeats;
  }

  /** Records one accepted send (a validated body of `type`); true when it repeats an earlier one. */
  record(phoneNumberId: string, waId: string, type: string, body: unknown): boolean {
    const key = digest(identity(phoneNumberId, waId, type, body));
    if (this.seen.has(key)) {
      this.repeats += 1;
      return true;
    }
    this.seen.add(key);
    return false;
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

function digest(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}
