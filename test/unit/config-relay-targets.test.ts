import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { parseRelayTargets } from '../../src/config/relay-targets.js';

describe('RELAY_WEBHOOKS', () => {
  it('reads URL and URL|SECRET entries, naming each by its host and path', () => {
    const targets = parseRelayTargets('https://inbox.example.com/webhooks/whatsapp|s3cret, http://127.0.0.1:9000/bot');
    expect(typeof targets).not.toBe('string');
    if (typeof targets === 'string') return;
    expect(targets.map((t) => [t.name, t.url, t.secret?.reveal()])).toEqual([
      ['inbox.example.com-webhooks-whatsapp', 'https://inbox.example.com/webhooks/whatsapp', 's3cret'],
      ['127.0.0.1-9000-bot', 'http://127.0.0.1:9000/bot', undefined],
    ]);
  });

  it('leaves the query out of the name: a token there would reach metric labels and logs', () => {
    const targets = parseRelayTargets('https://bot.example/hook?token=abc123');
    expect(typeof targets === 'string' ? targets : targets.map((t) => [t.name, t.url])).toEqual([
      ['bot.example-hook', 'https://bot.example/hook?token=abc123'],
    ]);
  });

  it('says which entry is wrong and how to write it, never echoing a secret', () => {
    expect(parseRelayTargets('https://a.example/x,,https://b.example')).toMatch(/^entry 2 of 3 is empty/);
    expect(parseRelayTargets('inbox.example.com|topsecret')).toMatch(/^entry 1 of 1 is not a URL/);
    expect(parseRelayTargets('ftp://a.example/x')).toMatch(/must be an http\(s\) URL/);
    expect(parseRelayTargets('https://a.example/x|top secret')).toMatch(/one word of printable characters/);
    expect(parseRelayTargets('https://a.example/x,https://A.example/x|s')).toMatch(/repeats a.example-x/);
    expect(() => loadConfig({ RELAY_WEBHOOKS: 'nope|hunter2' })).toThrow(/RELAY_WEBHOOKS: entry 1 of 1 is not a URL/);
    expect(() => loadConfig({ RELAY_WEBHOOKS: 'nope|hunter2' })).not.toThrow(/hunter2/);
  });

  it('HOOK_RETRY_HOURS and PUBLIC_URL: hours in ms, the address without its trailing slash', () => {
    const config = loadConfig({ HOOK_RETRY_HOURS: '0.5', PUBLIC_URL: 'https://links.example.com/' });
    expect(config.hookRetryMs).toBe(1_800_000);
    expect(config.publicUrl).toBe('https://links.example.com');
    expect(() => loadConfig({ HOOK_RETRY_HOURS: '0' })).toThrow(/HOOK_RETRY_HOURS: must be a number of hours > 0/);
    expect(() => loadConfig({ PUBLIC_URL: 'links.example.com' })).toThrow(/PUBLIC_URL: must be an http\(s\) URL/);
  });
});
