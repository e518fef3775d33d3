import { createHash } from 'node:crypto';
import type { SendPlan } from '../send-plan.js';
import { fillText, type TextPlan } from '../text-plan.js';

/**
 * Identifies one message (template, language, recipient, values, header link) by a hash, so
 * the duplicate-send guard can compare messages across campaigns without keeping their
 * text: 128 bits of SHA-256, base64url (22 characters). The phone number ID is not in it:
 * the guard is kept per number.
 */
export function messageFingerprint(
  plan: Pick<SendPlan, 'name' | 'language'>,
  to: string,
  values: readonly string[],
  headerLink: string | undefined,
): string {
  // JSON keeps the parts apart: ["a,b"] and ["a","b"] hash differently.
  return createHash('sha256')
    .update(JSON.stringify([plan.name, plan.language, to, values, headerLink ?? null]))
    .digest('base64url')
    .slice(0, 22);
}

/**
 * The same for a text message (`--text`): the body as this row fills it (the words the
 * recipient reads, so the body's placeholders and values are both in it) and the recipient,
 * tagged 'text' so that no template's parts can hash alike. Two text campaigns that send the
 * same words to the same person send the same message, however their placeholders are named.
 * `--preview-url` is left out: it changes how a link is shown, not the message.
 */
export function textMessageFingerprint(text: TextPlan, to: string, values: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify(['text', fillText(text, values), to]))
    .digest('base64url')
    .slice(0, 22);
}
