import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';

describe('MEDIA_ALLOW_PRIVATE_HOSTS', () => {
  it('is off by default: media links are fetched from public addresses only', () => {
    expect(loadConfig({}).media).toEqual({ allowPrivateHosts: false });
    expect(loadConfig({ MEDIA_ALLOW_PRIVATE_HOSTS: '' }).media.allowPrivateHosts).toBe(false);
  });

  it.each([
    ['1', true],
    ['true', true],
    ['0', false],
    ['false', false],
  ])('%s → %s', (value, allowed) => {
    expect(loadConfig({ MEDIA_ALLOW_PRIVATE_HOSTS: value }).media.allowPrivateHosts).toBe(allowed);
  });

  it('another value is refused by name', () => {
    expect(() => loadConfig({ MEDIA_ALLOW_PRIVATE_HOSTS: 'sometimes' })).toThrow(/MEDIA_ALLOW_PRIVATE_HOSTS: must be 1 or 0/);
  });
});
