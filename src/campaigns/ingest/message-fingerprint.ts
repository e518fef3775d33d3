import { createHash } from 'node:crypto';
import type { SendPlan } from '../send-plan.js';

/**
 * Identifies one message (template, language, recipient, values, header link) by a hash, so
 * the duplicate-send guard can compare messages across campaigns without keeping their
 * text: 128 bits of SHA-256, base64url (22 characters). The phone number ID is not in it:
 * the guard is kept per number.
 */
export function messageFingerprint(plan: Pick<SendPlan, 'name' | 'language'>, to: string, values: readonly string[], headerLink: string | undefined): string {
  // JSON keeps the parts apart: ["a,b"] and ["a","b"] hash differently.
  return createHash('sha256')
    .update(JSON.stringify([plan.name, plan.language, to, values, headerLink ?? null]))
    .digest('base64url')
    .slice(0, 22);
}
