import { randomBytes } from 'node:crypto';

/** Random bytes per token: 128 bits, far past guessing (the floor is 96). */
const TOKEN_BYTES = 16;

/** A token as newClickToken makes it: 16 bytes in base64url, 22 characters, no padding. */
export const CLICK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/**
 * A tracked link's token: random bytes from the system's CSPRNG, URL-safe. It carries nothing
 * about the recipient, the row or the campaign; only the index in Redis ties it to them.
 */
export function newClickToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Whether `value` has a token's form: anything else is answered 404 without asking Redis. */
export function isClickToken(value: string): boolean {
  return CLICK_TOKEN_PATTERN.test(value);
}
