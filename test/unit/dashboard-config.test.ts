import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { Secret } from '../../src/config/secret.js';
import { isAppError } from '../../src/errors/app-error.js';

describe('loadConfig: DASHBOARD_USER and DASHBOARD_PASSWORD', () => {
  it('default: user admin, no password', () => {
    expect(loadConfig({}).dashboard).toStrictEqual({ user: 'admin', password: undefined });
    expect(loadConfig({ DASHBOARD_PASSWORD: '   ' }).dashboard.password).toBeUndefined();
  });

  it('keeps the password as a Secret that no log line, JSON or inspection shows', () => {
    const config = loadConfig({ DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'correct horse: battery' });
    expect(config.dashboard.user).toBe('ops');
    expect(config.dashboard.password).toBeInstanceOf(Secret);
    expect(config.dashboard.password?.reveal()).toBe('correct horse: battery');
    expect(JSON.stringify(config)).not.toContain('battery');
    expect(inspect(config, { depth: 10 })).not.toContain('battery');
    expect(`${String(config.dashboard.password)}`).toBe('[redacted]');
  });

  it.each([
    ['DASHBOARD_USER', 'ops:team', 'without ":"'],
    ['DASHBOARD_USER', 'two words', 'one word'],
    ['DASHBOARD_PASSWORD', 'line one\nline two', 'one line'],
  ])('refuses %s=%j, without echoing it', (name, value, why) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(isAppError(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toContain(`${name}: must be`);
    expect((error as Error).message).toContain(why);
    expect((error as Error).message).not.toContain(value);
  });
});
