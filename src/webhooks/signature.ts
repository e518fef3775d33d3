import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../config/secret.js';

/** The header Meta signs every webhook POST with (reference §3.1), as node lower-cases it. */
export const SIGNATURE_HEADER = 'x-hub-signature-256';

/** `sha256=` and 64 hex digits (Meta writes lowercase; case is not what makes it genuine). */
const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/**
 * Whether `header` (`X-Hub-Signature-256: sha256=<hex>`) is the HMAC-SHA256 of exactly these
 * bytes under one of `secrets` (several while the app secret is rotated). The bytes are the
 * body as received: Meta signs its own serialisation (escaped unicode), so parsed and
 * re-serialised JSON would not match. The digests are compared in constant time, and every
 * secret is tried, so the time taken says nothing about the signature or which secret it is.
 * Never throws: a missing, repeated or malformed header is simply not a valid signature.
 */
export function verifySignature(raw: Buffer, header: string | undefined, secrets: readonly Secret[]): boolean {
  const claimed = parseSignatureHeader(header);
  if (claimed === undefined) return false;
  let valid = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret.reveal()).update(raw).digest();
    // Both are 32 bytes here; timingSafeEqual throws on unequal lengths, so keep the check.
    if (expected.length === claimed.length && timingSafeEqual(expected, claimed)) valid = true;
  }
  return valid;
}

/** The 32-byte digest a well-formed header claims, or undefined. Cheap: checked before the body is read. */
export function parseSignatureHeader(header: string | undefined): Buffer | undefined {
  if (typeof header !== 'string') return undefined;
  const match = SIGNATURE.exec(header);
  return match?.[1] === undefined ? undefined : Buffer.from(match[1], 'hex');
}

/** `sha256=<hex>` for these bytes and secret: what Meta sends (tests, and the sandbox's webhooks). */
export function signatureHeader(raw: Buffer | string, secret: Secret): string {
  return `sha256=${createHmac('sha256', secret.reveal()).update(raw).digest('hex')}`;
}
