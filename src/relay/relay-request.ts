import type { RelayTarget } from '../config/relay-targets.js';
import type { Secret } from '../config/secret.js';
import { signatureOf } from '../outbound/signed-post.js';

/** Names the target a relayed body was meant for, so a receiver behind one URL for several can tell them apart. */
export const RELAY_TARGET_HEADER = 'x-campaign-relay';
/** Meta's signature header: a receiver checks a relayed body exactly as it would check Meta's. */
export const RELAY_SIGNATURE_HEADER = 'x-hub-signature-256';

/**
 * The headers a body is relayed with: Meta's Content-Type (JSON when the request had none),
 * and `X-Hub-Signature-256` over the exact bytes with the target's own app secret, or with
 * `metaSecret` (the first WHATSAPP_APP_SECRET) for a target without one, which then gets
 * the very signature Meta sent.
 */
export function relayHeaders(target: RelayTarget, body: Buffer, contentType: string, metaSecret: Secret): Record<string, string> {
  const secret = target.secret ?? metaSecret;
  return {
    'content-type': contentType === '' ? 'application/json' : contentType,
    [RELAY_SIGNATURE_HEADER]: signatureOf(body, secret.reveal()),
    [RELAY_TARGET_HEADER]: target.name,
  };
}
