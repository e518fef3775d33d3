import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/app-error.js';
import { EVENT_TYPES } from '../../src/events/campaign-event.js';
import { parseHookEvents } from '../../src/hooks/hook-events.js';
import { checkHookName, nameFromUrl } from '../../src/hooks/hook-name.js';
import { parseHookUrl } from '../../src/hooks/hook-url.js';

/** The code and message an input is refused with. */
function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('not refused');
}

describe('a hook’s events', () => {
  it('takes names, comma-separated or not, once each, in the events’ own order', () => {
    expect(parseHookEvents(['row.failed, row.sent', 'row.sent'])).toEqual(['row.sent', 'row.failed']);
    expect(parseHookEvents(['campaign.completed,row.read'])).toEqual(['row.read', 'campaign.completed']);
  });

  it('takes all, row.* and campaign.*', () => {
    expect(parseHookEvents(['all'])).toEqual([...EVENT_TYPES]);
    expect(parseHookEvents(['row.*'])).toEqual(EVENT_TYPES.filter((type) => type.startsWith('row.')));
    expect(parseHookEvents(['campaign.*,row.sent'])).toEqual([
      'row.sent',
      'campaign.started',
      'campaign.paused',
      'campaign.completed',
      'campaign.cancelled',
    ]);
  });

  it('refuses an unknown event naming it and listing the valid ones', () => {
    const { code, message } = refusal(() => parseHookEvents(['row.sent,row.bounced']));
    expect(code).toBe('HOOK_INVALID');
    expect(message).toContain('"row.bounced"');
    for (const type of EVENT_TYPES) expect(message).toContain(type);
  });

  it('refuses an empty list', () => {
    expect(refusal(() => parseHookEvents([' , '])).code).toBe('HOOK_INVALID');
    expect(refusal(() => parseHookEvents([])).code).toBe('HOOK_INVALID');
  });
});

describe('a hook’s name', () => {
  it('follows the audience names’ pattern', () => {
    expect(checkHookName('crm.example.com')).toBe('crm.example.com');
    expect(checkHookName('crm_2')).toBe('crm_2');
    for (const bad of ['', '-crm', 'crm:1', 'a{b}', 'with space', 'x/y', 'a'.repeat(65)]) {
      expect(refusal(() => checkHookName(bad)).code, bad).toBe('HOOK_INVALID');
    }
  });

  it('is derived from the URL’s host, its port joined with -', () => {
    expect(nameFromUrl(new URL('https://crm.example.com/hooks?x=1'))).toBe('crm.example.com');
    expect(nameFromUrl(new URL('http://localhost:8080/in'))).toBe('localhost-8080');
    expect(nameFromUrl(new URL('http://[::1]:9000/'))).toBe('1-9000');
    expect(checkHookName(nameFromUrl(new URL('http://127.0.0.1:1/')))).toBe('127.0.0.1-1');
  });
});

describe('a hook’s URL', () => {
  it('is absolute http(s), without its fragment', () => {
    expect(parseHookUrl(' https://crm.example.com/in#x ').href).toBe('https://crm.example.com/in');
  });

  it('refuses anything else, and credentials in it', () => {
    expect(refusal(() => parseHookUrl('crm.example.com/in')).code).toBe('HOOK_INVALID');
    expect(refusal(() => parseHookUrl('ftp://crm.example.com/')).message).toContain('ftp:');
    const withCredentials = refusal(() => parseHookUrl('https://user:pa55@crm.example.com/'));
    expect(withCredentials.code).toBe('HOOK_INVALID');
    expect(withCredentials.message).not.toContain('pa55');
  });
});
