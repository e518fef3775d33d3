import { describe, expect, it } from 'vitest';
import { tokensJson, tokensText } from '../../src/cli/run/tokens.js';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const TOKENS = [
  { name: 'crm', scope: 'send' as const, createdAt: NOW - 86_400_000, expiresAt: NOW - 1, lastUsedAt: NOW - 3_600_000 },
  { name: 'ops', scope: 'admin' as const, createdAt: NOW, expiresAt: null, lastUsedAt: null },
];

describe('tokens list output', () => {
  it('text: one aligned line per token, an expired one marked, never used as "never"', () => {
    expect(tokensText(TOKENS, NOW).split('\n')).toStrictEqual([
      'NAME  SCOPE  CREATED               EXPIRES                         LAST USED',
      'crm   send   2026-11-25T12:00:00Z  2026-11-26T11:59:59Z (expired)  2026-11-26T11:00:00Z',
      'ops   admin  2026-11-26T12:00:00Z  never                           never',
    ]);
    expect(tokensText([], NOW)).toBe('No API tokens under this QUEUE_PREFIX.');
  });
  it('JSON: ISO times, null for never', () => {
    expect(JSON.parse(tokensJson(TOKENS))).toStrictEqual([
      {
        name: 'crm',
        scope: 'send',
        createdAt: '2026-11-25T12:00:00.000Z',
        expiresAt: '2026-11-26T11:59:59.999Z',
        lastUsedAt: '2026-11-26T11:00:00.000Z',
      },
      { name: 'ops', scope: 'admin', createdAt: '2026-11-26T12:00:00.000Z', expiresAt: null, lastUsedAt: null },
    ]);
  });
});
