import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseRelayTargets, type RelayTarget } from '../../src/config/relay-targets.js';
import { Secret } from '../../src/config/secret.js';
import { relayHeaders } from '../../src/relay/relay-request.js';

/** What a relayed body is sent with: Meta's content type, and the signature a receiver checks with its app secret. */
const META = new Secret('meta-app-secret');
const BODY = Buffer.from('{"object":"whatsapp_business_account","entry":[ ]}\n', 'utf8');
const hmac = (secret: string): string => `sha256=${createHmac('sha256', secret).update(BODY).digest('hex')}`;

function targets(text: string): RelayTarget[] {
  const parsed = parseRelayTargets(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

describe('relay headers', () => {
  const [own, meta] = targets('https://inbox.example/hooks/meta|inbox-secret,https://bot.example/wa') as [RelayTarget, RelayTarget];

  it("signs the exact bytes with the target's own secret", () => {
    expect(relayHeaders(own, BODY, 'application/json', META)).toEqual({
      'content-type': 'application/json',
      'x-hub-signature-256': hmac('inbox-secret'),
      'x-campaign-relay': 'inbox.example-hooks-meta',
    });
  });

  it("signs with Meta's app secret for a target without one: the signature Meta sent", () => {
    expect(relayHeaders(meta, BODY, 'application/json; charset=utf-8', META)).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'x-hub-signature-256': hmac('meta-app-secret'),
      'x-campaign-relay': 'bot.example-wa',
    });
  });

  it('sends JSON as the content type when the request had none', () => {
    expect(relayHeaders(meta, BODY, '', META)['content-type']).toBe('application/json');
  });
});
