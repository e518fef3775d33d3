import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { optOutsKey } from '../../src/redis/ledger/ledger-keys.js';

/** `campaign optouts list|add|remove`: the opt-out store without redis-cli. */
describe('campaign optouts', () => {
  it('add, list (text and JSON), remove; a bad number is OPTION_INVALID (PHONE_NOT_IN_PLAN outside its plan) with exit 2', async () => {
    const prefix = freshPrefix('optouts');
    const env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, WHATSAPP_PHONE_NUMBER_ID: '106540352242922' };
    const redis = testRedis();
    try {
      expect((await runCli(['optouts', 'add', '+49 151 12345678'], env)).stdout).toContain('+4915112345678 is opted out');
      expect((await runCli(['optouts', 'add', '+4915112345678'], env)).stdout).toContain('already opted out');
      expect(await redis.hexists(optOutsKey(prefix, '106540352242922'), '+4915112345678')).toBe(1);
      const listed = await runCli(['optouts', 'list', '--json'], env);
      expect(JSON.parse(listed.stdout)).toMatchObject([{ phone: '+4915112345678', via: 'operator' }]);
      expect((await runCli(['optouts', 'list'], env)).stdout).toMatch(/\+4915112345678 .* campaign optouts add/);
      expect((await runCli(['optouts', 'remove', '+4915112345678'], env)).stdout).toContain('no longer opted out');
      expect((await runCli(['optouts', 'list'], env)).stdout).toContain('No opt-outs');
      const bad = await runCli(['optouts', 'add', '12345'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(
        /^campaign: OPTION_INVALID: "12345" has no country code: write it as \+<country code><number>, e\.g\. \+4915112345678$/m,
      );
      expect(bad.stderr).not.toMatch(/at .*\.ts:\d+/);
      // Of E.164's form, but too short for Denmark: the code says it is the numbering plan, as the API's does.
      const outsidePlan = await runCli(['optouts', 'add', '+4509222'], env);
      expect(outsidePlan.code).toBe(2);
      expect(outsidePlan.stderr).toMatch(/^campaign: PHONE_NOT_IN_PLAN: "\+4509222" is not a valid number for DK/m);
      // Letters are not a number that lacks its country code: said as such.
      const word = await runCli(['optouts', 'add', 'notaphone'], env);
      expect(word.code).toBe(2);
      expect(word.stderr).toBe(
        'campaign: OPTION_INVALID: "notaphone" is not a phone number: write it as +<country code><number>, e.g. +4915112345678\n',
      );
      expect(await redis.hlen(optOutsKey(prefix, '106540352242922'))).toBe(0);
    } finally {
      await removePrefix(redis, prefix);
      await redis.quit();
    }
  });

  it('--portfolio: an opt-out added on the portfolio holds on each of its numbers, not on another portfolio’s', async () => {
    const prefix = freshPrefix('optouts-portfolio');
    const env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, PORTFOLIOS: '1001:shop,1002:shop' };
    const redis = testRedis();
    try {
      expect((await runCli(['optouts', 'add', '+4915112345678', '--portfolio', 'shop'], env)).stdout).toContain(
        '+4915112345678 is opted out of marketing on portfolio shop',
      );
      expect(await redis.hexists(optOutsKey(prefix, '1002'), '+4915112345678')).toBe(1);
      const viaNumber = await runCli(['optouts', 'list', '--phone-number-id', '1001', '--json'], env);
      expect(JSON.parse(viaNumber.stdout)).toMatchObject([{ phone: '+4915112345678', via: 'operator' }]);
      expect((await runCli(['optouts', 'list', '--phone-number-id', '2001'], env)).stdout).toBe(
        'No opt-outs on portfolio default (of 2001).\n',
      );
      const mismatch = await runCli(['optouts', 'list', '--portfolio', 'shop', '--phone-number-id', '2001'], env);
      expect(mismatch.code).toBe(2);
      expect(mismatch.stderr).toContain('OPTION_INVALID: --phone-number-id 2001 is in portfolio default (PORTFOLIOS), not shop');
      expect((await runCli(['optouts', 'remove', '+4915112345678', '--phone-number-id', '1002'], env)).stdout).toContain(
        'no longer opted out on portfolio shop (of 1002)',
      );
      expect(await redis.hexists(optOutsKey(prefix, '1001'), '+4915112345678')).toBe(0);
    } finally {
      await removePrefix(redis, prefix);
      await redis.quit();
    }
  });
});
