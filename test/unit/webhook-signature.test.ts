import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { signatureHeader, verifySignature } from '../../src/webhooks/signature.js';

/**
 * X-Hub-Signature-256 (reference §3.1): the hex HMAC-SHA256 of the raw body under the app
 * secret. Every case computes the expected signature independently (createHmac here), so the
 * helper under test is not checked against itself.
 */
const SECRET = 'app-secret-0123456789abcdef';
const OTHER = 'previous-app-secret-fedcba9876';
const secrets = [new Secret(SECRET)];

function sign(body: Buffer | string, secret = SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

// As Meta serialises it: non-ASCII escaped (\u00e9), so the bytes are pure ASCII.
const META_BODY = Buffer.from(
  '{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"a":"\\u00e9"}}]}]}',
);

describe('verifySignature', () => {
  it('accepts the signature Meta computes over the bytes as sent', () => {
    expect(verifySignature(META_BODY, sign(META_BODY), secrets)).toBe(true);
  });

  it('accepts uppercase hex (the digest is what counts, not its spelling)', () => {
    const header = `sha256=${sign(META_BODY).slice('sha256='.length).toUpperCase()}`;

    expect(verifySignature(META_BODY, header, secrets)).toBe(true);
  });

  it('refuses a signature made with another secret', () => {
    expect(verifySignature(META_BODY, sign(META_BODY, 'not-the-secret'), secrets)).toBe(false);
  });

  it('refuses a signature of other bytes (one byte changed)', () => {
    const tampered = Buffer.from(META_BODY);
    tampered[tampered.length - 3] = 0x30;

    expect(verifySignature(tampered, sign(META_BODY), secrets)).toBe(false);
  });

  it('refuses a missing header', () => {
    expect(verifySignature(META_BODY, undefined, secrets)).toBe(false);
  });

  it('refuses every secret when none is configured', () => {
    expect(verifySignature(META_BODY, sign(META_BODY), [])).toBe(false);
  });

  const good = sign(META_BODY).slice('sha256='.length);
  it.each([
    ['empty', ''],
    ['the bare hex, without sha256=', good],
    ['another algorithm', `sha1=${good}`],
    ['upper-case prefix', `SHA256=${good}`],
    ['space after =', `sha256= ${good}`],
    ['two headers joined by node', `sha256=${good}, sha256=${good}`],
    ['a non-hex digit', `sha256=${good.slice(0, 63)}g`],
    ['one hex digit short (odd length)', `sha256=${good.slice(0, 63)}`],
    ['one byte short', `sha256=${good.slice(0, 62)}`],
    ['one byte too many', `sha256=${good}00`],
    ['only the prefix', 'sha256='],
    ['garbage', 'hello world'],
  ])('refuses a malformed or wrong-length header (%s) without throwing', (_label, header) => {
    expect(() => verifySignature(META_BODY, header, secrets)).not.toThrow();
    expect(verifySignature(META_BODY, header, secrets)).toBe(false);
  });

  it('a rotation list: a body signed with any listed secret is accepted, others are not', () => {
    const both = [new Secret(OTHER), new Secret(SECRET)];

    expect(verifySignature(META_BODY, sign(META_BODY, SECRET), both)).toBe(true);
    expect(verifySignature(META_BODY, sign(META_BODY, OTHER), both)).toBe(true);
    expect(verifySignature(META_BODY, sign(META_BODY, 'third-secret'), both)).toBe(false);
    // The order of the list does not matter.
    expect(verifySignature(META_BODY, sign(META_BODY, OTHER), [...both].reverse())).toBe(true);
  });

  it('a body re-serialised after signing is refused: JSON.stringify(JSON.parse(…)) writes é, Meta wrote \\u00e9', () => {
    const signed = Buffer.from('{"a":"\\u00e9"}');
    const header = sign(signed);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(signed.toString('utf8'))));

    // The same JSON value, other bytes.
    expect(JSON.parse(reserialised.toString('utf8'))).toStrictEqual(JSON.parse(signed.toString('utf8')));
    expect(reserialised.equals(signed)).toBe(false);
    expect(verifySignature(signed, header, secrets)).toBe(true);
    expect(verifySignature(reserialised, header, secrets)).toBe(false);
  });

  it('a body re-serialised with other spacing is refused', () => {
    const signed = Buffer.from('{"entry": [ {"id": "1"} ]}');

    expect(verifySignature(Buffer.from(JSON.stringify(JSON.parse(signed.toString()))), sign(signed), secrets)).toBe(false);
  });

  it('an empty body has a signature too', () => {
    expect(verifySignature(Buffer.alloc(0), sign(''), secrets)).toBe(true);
    expect(verifySignature(Buffer.alloc(0), sign('x'), secrets)).toBe(false);
  });

  it('signatureHeader (for the sandbox and tests) writes what Meta writes', () => {
    expect(signatureHeader(META_BODY, new Secret(SECRET))).toBe(sign(META_BODY));
  });
});
