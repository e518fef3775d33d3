import { resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { silentLogger } from '../../src/logging/logger.js';
import { buildTemplateRegistry } from '../../src/app/templates.js';

const TOKEN = 'EAAGcommand-token-never-printed';

/** The registry never touches Redis until list/sync, so a stand-in is enough to check the choice of source. */
function context(env: Record<string, string>) {
  return { config: loadConfig(env), logger: silentLogger(), redis: {} as Redis };
}

describe('buildTemplateRegistry: choice of source', () => {
  const api = { WHATSAPP_BUSINESS_ACCOUNT_ID: '102290129340398', WHATSAPP_ACCESS_TOKEN: TOKEN };

  it('--templates FILE wins over TEMPLATES_FILE and the API', () => {
    const registry = buildTemplateRegistry(context({ ...api, TEMPLATES_FILE: 'other.json' }), { file: 'samples/templates.json' });
    expect(registry.describe()).toBe(`file ${resolve('samples/templates.json')}`);
  });

  it('TEMPLATES_FILE wins over the API', () => {
    const registry = buildTemplateRegistry(context({ ...api, TEMPLATES_FILE: 'samples/templates.json' }), {});
    expect(registry.describe()).toBe(`file ${resolve('samples/templates.json')}`);
  });

  it('otherwise the Cloud API for WHATSAPP_BUSINESS_ACCOUNT_ID, without the token in its description', async () => {
    const registry = buildTemplateRegistry(context({ ...api, WHATSAPP_API_URL: 'http://127.0.0.1:9/', WHATSAPP_API_VERSION: 'v24.0' }), {});
    expect(registry.describe()).toBe('Cloud API http://127.0.0.1:9/v24.0 WABA 102290129340398');
    expect(registry.describe()).not.toContain(TOKEN);
    await registry.close();
  });

  it('refuses with CONFIG_INVALID when nothing is configured', () => {
    expect(() => buildTemplateRegistry(context({}), {})).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('No template source') as unknown }),
    );
  });

  it('refuses with CONFIG_INVALID when the WABA is set without a token', () => {
    expect(() => buildTemplateRegistry(context({ WHATSAPP_BUSINESS_ACCOUNT_ID: '102290129340398' }), {})).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('WHATSAPP_ACCESS_TOKEN') as unknown }),
    );
  });
});
