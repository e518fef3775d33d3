import { randomBytes } from 'node:crypto';
import { metaWamid, type WamidKind } from '../cloud-api/wamid-shape.js';

/**
 * Message IDs of the shape and length of Meta's (src/cloud-api/wamid-shape.ts): 18 hex
 * characters for a message the business sent, 20 for one a user sent.
 *
 * The hex ID is 10 hex characters drawn once per process and a process-wide counter of 8: unique
 * within the process (several sandboxes may run in one test process; a counter that wraps draws
 * new random characters), and two runs, even concurrent ones, share their random part once in
 * 2^40. No randomness per ID: an ID costs a small buffer and its base64.
 */
const COUNTER_LIMIT = 2 ** 32;

let prefix = randomHex();
let counter = 0;

/** A fresh ID for a message to or from the user with these digits (a wa_id; '' when unknown). */
export function newWamid(digits: string, kind: WamidKind = 'sent'): string {
  counter += 1;
  if (counter === COUNTER_LIMIT) {
    const old = prefix;
    while (prefix === old) prefix = randomHex();
    counter = 1;
  }
  const tail = counter
    .toString(16)
    .toUpperCase()
    .padStart(kind === 'sent' ? 8 : 10, '0');
  return metaWamid(digits, `${prefix}${tail}`, kind);
}

/**
 * Whether this process made a message ID with this hex part: its random prefix is the
 * current one and its counter has been reached. IDs made before the counter last wrapped
 * (2^32 IDs ago) are no longer recognised.
 */
export function issuedHere(hexId: string): boolean {
  if (!hexId.startsWith(prefix)) return false;
  const made = Number.parseInt(hexId.slice(prefix.length), 16);
  return Number.isInteger(made) && made >= 1 && made <= counter;
}

function randomHex(): string {
  return randomBytes(5).toString('hex').toUpperCase();
}
