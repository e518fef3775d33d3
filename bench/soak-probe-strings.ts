import { createHash } from 'node:crypto';

/**
 * The sandbox's duplicate accounting as a Set of SHA-256 strings (43 characters each), kept
 * here only so the soak probe can measure it beside the DigestSet that replaced it, in the same
 * run and under the same load. Same identity as DuplicateSends for the probe's sends, which
 * all carry `biz_opaque_callback_data`.
 */
export class StringSetDuplicates {
  private readonly seen = new Set<string>();
  private repeats = 0;

  get duplicates(): number {
    return this.repeats;
  }

  record(phoneNumberId: string, waId: string, _type: string, body: unknown): boolean {
    const callbackData = (body as { biz_opaque_callback_data?: unknown }).biz_opaque_callback_data;
    const key = createHash('sha256')
      .update(JSON.stringify([phoneNumberId, waId, `cb:${String(callbackData)}`]))
      .digest('base64url');
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
