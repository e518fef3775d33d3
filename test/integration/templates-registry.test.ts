import type { Redis } from 'ioredis';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudApiTemplateSource } from '../../src/cloud-api/templates-client.js';
import { loadConfig } from '../../src/config/config.js';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisTemplateCache } from '../../src/redis/templates/redis-template-cache.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { TemplateRegistry } from '../../src/templates/template-registry.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';
import type { TemplateSource } from '../../src/templates/template-source.js';
import { runTemplatesList, runTemplatesSync } from '../../src/cli/run/templates.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

const WABA = '102290129340398';
const logger = silentLogger();

/** Counts the HTTP requests (pages) that go through it. */
class CountingAgent extends Agent {
  requests = 0;
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.requests++;
    return super.dispatch(options, handler);
  }
}

/** Counts fetchAll calls of the source it wraps. */
function counting(inner: TemplateSource): TemplateSource & { calls: number } {
  const wrapper = {
    calls: 0,
    describe: () => inner.describe(),
    fetchAll: () => {
      wrapper.calls++;
      return inner.fetchAll();
    },
  };
  return wrapper;
}

let sandbox: Sandbox;
let redis: Redis;
let prefix: string;
let agent: CountingAgent;
let sample: MessageTemplate[];

beforeEach(async () => {
  sample = await loadTemplatesFile('samples/templates.json');
  sandbox = await startSandbox({ templates: sample, accessToken: 't', port: 0, businessAccountIds: [WABA] });
  redis = testRedis();
  prefix = freshPrefix('templates');
  agent = new CountingAgent();
});

afterEach(async () => {
  await agent.close();
  await sandbox.close();
  await removePrefix(redis, prefix);
  await redis.quit();
});

function apiSource(token = 't'): CloudApiTemplateSource {
  return new CloudApiTemplateSource({
    baseUrl: sandbox.url,
    apiVersion: 'v23.0',
    businessAccountId: WABA,
    accessToken: new Secret(token),
    timeoutMs: 5_000,
    pageSize: 2,
    dispatcher: agent,
  });
}

function registry(source: TemplateSource, refreshMs = 60_000): TemplateRegistry {
  const cache = new RedisTemplateCache(redis, { prefix, scope: `waba:${WABA}`, logger });
  return new TemplateRegistry({ source, cache, refreshMs, logger });
}

const keyOf = (t: MessageTemplate) => `${t.name}/${t.language}/${t.status}`;

describe('TemplateRegistry over the Cloud API source against the sandbox, cached in Redis', () => {
  it('pages through every template and caches the list under the prefix', async () => {
    const source = counting(apiSource());

    const listed = await registry(source).list();

    expect(listed.map(keyOf)).toEqual(sample.map(keyOf));
    expect(agent.requests).toBe(Math.ceil(sample.length / 2));
    expect(source.calls).toBe(1);
    const stored = JSON.parse((await redis.get(`${prefix}:templates:waba:${WABA}`)) ?? 'null') as { templates: unknown[]; source: string };
    expect(stored.templates).toHaveLength(sample.length);
    expect(stored.source).toBe(`Cloud API ${sandbox.url}/v23.0 WABA ${WABA}`);
    expect(JSON.stringify(stored)).not.toContain('Bearer');
  });

  it('a second registry on the same Redis reads the cache without calling the source', async () => {
    const first = counting(apiSource());
    await registry(first).sync();
    const second = counting(apiSource());

    const listed = await registry(second).list();
    const found = await registry(second).find('order_update', 'de');

    expect(second.calls).toBe(0);
    expect(listed.map(keyOf)).toEqual(sample.map(keyOf));
    expect(found.template).toBeUndefined();
    expect(found.sameName.map((t) => t.language)).toEqual(['en_US', 'pt_BR']);
  });

  it('serves the cached copy when the API refuses the token, and fails without one', async () => {
    await registry(apiSource()).sync();
    sandbox.setAccessToken('rotated');

    const stale = await registry(apiSource(), 0).list();
    expect(stale).toHaveLength(sample.length);

    await removePrefix(redis, prefix);
    await expect(registry(apiSource(), 0).list()).rejects.toMatchObject({ code: 'CLOUD_API_ERROR', metaCode: 190 });
  });

  it('treats a corrupt cache as absent', async () => {
    await redis.set(`${prefix}:templates:waba:${WABA}`, '{"templates": "oops"}');
    const source = counting(apiSource());

    expect(await registry(source).list()).toHaveLength(sample.length);
    expect(source.calls).toBe(1);
  });
});

describe('campaign templates sync / list', () => {
  function context(env: Record<string, string>) {
    return { config: loadConfig({ QUEUE_PREFIX: prefix, ...env }), logger, redis };
  }
  const apiEnv = () => ({ WHATSAPP_API_URL: sandbox.url, WHATSAPP_BUSINESS_ACCOUNT_ID: WABA, WHATSAPP_ACCESS_TOKEN: 't' });

  it('sync fetches from the API; list prints approved templates with their variables', async () => {
    const synced = await runTemplatesSync(context(apiEnv()));
    expect(synced).toMatch(new RegExp(`^Synced ${sample.length} templates from Cloud API .* WABA ${WABA} at \\d{4}-`));

    const text = await runTemplatesList(context(apiEnv()));
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+LANGUAGE\s+STATUS\s+CATEGORY\s+KIND\s+FORMAT\s+SLOTS$/);
    expect(text).toMatch(/order_update\s+en_US\s+APPROVED\s+UTILITY\s+standard\s+POSITIONAL\s+body\.1 body\.2$/m);
    expect(text).toMatch(
      /spring_promo\s+en_US\s+APPROVED\s+MARKETING\s+standard\s+POSITIONAL\s+header\.image body\.1 body\.2 button\.0\.payload\?$/m,
    );
    expect(text).not.toContain('PAUSED');

    const json = JSON.parse(await runTemplatesList(context(apiEnv()), { json: true, all: true })) as { name: string; status: string }[];
    expect(json).toHaveLength(sample.length);
  });

  it('list reads a local file with --templates, no API configured', async () => {
    const json = JSON.parse(await runTemplatesList(context({}), { file: 'samples/templates.json', json: true })) as { status: string }[];
    expect(json.length).toBe(sample.filter((t) => t.status === 'APPROVED').length);
    expect(json.every((t) => t.status === 'APPROVED')).toBe(true);
  });
});
