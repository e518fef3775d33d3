import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLuaInclude } from '../../src/redis/lua-scripts.js';
import { testRedis } from '../support/redis.js';

/**
 * The duplicate guard's field (includes/sent-guard.lua): the 12 bytes a fingerprint's first 16
 * base64url characters make, exactly as Node decodes them, and the same bucket address from
 * those bytes as from the characters; anything else is kept as its characters.
 */
const FIELDS = `${loadLuaInclude('sent-guard')}
local out = {}
for i = 1, #ARGV do
  local field = guardField(ARGV[i])
  out[#out + 1] = field
  out[#out + 1] = tostring(fingerprintAddress(field) == fingerprintAddress(ARGV[i]))
end
return out`;

describe("the guard's field of a fingerprint (real Redis)", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(() => redis.disconnect());

  const fields = async (fingerprints: string[]) => {
    const flat = (await redis.callBuffer('EVAL', FIELDS, 0, ...fingerprints)) as Buffer[];
    return fingerprints.map((_, i) => ({ field: flat[2 * i] ?? Buffer.alloc(0), sameAddress: flat[2 * i + 1]?.toString() }));
  };

  it('is the bytes of the first 16 characters of any base64url fingerprint, in the bucket its characters name', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ minLength: 12, maxLength: 32 }), { minLength: 1, maxLength: 50 }), async (digests) => {
        const fingerprints = digests.map((d) => Buffer.from(d).toString('base64url'));
        const got = await fields(fingerprints);
        got.forEach(({ field, sameAddress }, i) => {
          expect(field).toEqual(Buffer.from(fingerprints[i]?.slice(0, 16) ?? '', 'base64url'));
          expect(sameAddress).toBe('true');
        });
      }),
      { numRuns: 40 },
    );
  });

  it('keeps a fingerprint shorter than 16 characters, or with other characters, as its characters', async () => {
    const got = await fields(['fp-1', 'abc+/defghijklmnopq', 'ABCDEFGHIJKLMNO=xyz']);
    expect(got.map(({ field }) => field.toString())).toEqual(['fp-1', 'abc+/defghijklmn', 'ABCDEFGHIJKLMNO=']);
  });
});
