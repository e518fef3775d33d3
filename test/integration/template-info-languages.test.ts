import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisTemplateInfo } from '../../src/redis/templates/redis-template-info.js';
import { translationKey } from '../../src/templates/language-code.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * Meta's quality and category webhooks write a template's language `en-US` in places, where its
 * template list says `en_US`: what they say is kept for the one translation, and the list reads
 * it back under either spelling.
 */
describe('template info: a language written with - or _ is one translation', () => {
  let redis: Redis;
  let prefix: string;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('template-info-lang');
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('a quality webhook for en-US and a category one for en_US land on the same template, read under either', async () => {
    const info = new RedisTemplateInfo(redis, prefix);
    await info.record([
      { kind: 'quality', name: 'welcome_template', language: 'en-US', value: 'YELLOW', previous: 'GREEN', at: 1000 },
      { kind: 'category', name: 'welcome_template', language: 'en_US', value: 'MARKETING', previous: 'UTILITY', at: 2000 },
    ]);
    const expected = {
      quality: { value: 'YELLOW', previous: 'GREEN', at: 1000 },
      category: { value: 'MARKETING', previous: 'UTILITY', at: 2000 },
    };
    expect(await info.of('welcome_template', 'en_US')).toEqual(expected);
    expect(await info.of('welcome_template', 'en-US')).toEqual(expected);
    const all = await info.all();
    expect([...all.keys()]).toEqual([translationKey('welcome_template', 'en_US')]);
    // Another translation stays apart.
    expect(await info.of('welcome_template', 'pt_BR')).toBeUndefined();
  });
});
