import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { CloudApiTransportError } from '../../src/cloud-api/cloud-api-errors.js';
import { TemplateRegistry, type TemplateCache, type TemplateSnapshot } from '../../src/templates/template-registry.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';
import type { TemplateSource } from '../../src/templates/template-source.js';

const REFRESH_MS = 60_000;

function template(name: string, language: string, status = 'APPROVED'): MessageTemplate {
  return { name, language, status, parameter_format: 'POSITIONAL', components: [{ type: 'BODY', text: 'Hi {{1}}' }] };
}

class MemoryCache implements TemplateCache {
  snapshot: TemplateSnapshot | undefined;
  writes = 0;
  read(): Promise<TemplateSnapshot | undefined> {
    return Promise.resolve(this.snapshot);
  }
  write(snapshot: TemplateSnapshot): Promise<void> {
    this.writes++;
    this.snapshot = snapshot;
    return Promise.resolve();
  }
}

class FakeSource implements TemplateSource {
  calls = 0;
  closed = 0;
  failWith: Error | undefined;
  constructor(public templates: MessageTemplate[]) {}
  describe(): string {
    return 'fake source';
  }
  async fetchAll(): Promise<MessageTemplate[]> {
    this.calls++;
    await Promise.resolve();
    if (this.failWith !== undefined) throw this.failWith;
    return [...this.templates];
  }
  close(): Promise<void> {
    this.closed++;
    return Promise.resolve();
  }
}

function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

function setup(templates = [template('order_update', 'en_US'), template('order_update', 'pt_BR')]) {
  let clock = 1_700_000_000_000;
  const source = new FakeSource(templates);
  const cache = new MemoryCache();
  const { logger, lines } = capturingLogger();
  const registry = new TemplateRegistry({ source, cache, refreshMs: REFRESH_MS, now: () => clock, logger });
  return {
    source,
    cache,
    lines,
    registry,
    advance: (ms: number) => {
      clock += ms;
    },
    now: () => clock,
  };
}

describe('TemplateRegistry.list', () => {
  it('syncs when the cache is empty, and stores the snapshot', async () => {
    const { registry, source, cache, now } = setup();

    const listed = await registry.list();

    expect(listed.map((t) => t.language)).toEqual(['en_US', 'pt_BR']);
    expect(source.calls).toBe(1);
    expect(cache.snapshot).toEqual({ templates: listed, syncedAt: now(), source: 'fake source' });
  });

  it('serves the cached copy within refreshMs without asking the source', async () => {
    const { registry, source, advance } = setup();
    await registry.list();
    source.templates = [template('changed', 'en_US')];

    advance(REFRESH_MS - 1);
    const listed = await registry.list();

    expect(source.calls).toBe(1);
    expect(listed.map((t) => t.name)).toEqual(['order_update', 'order_update']);
  });

  it('refreshes once the cached copy is refreshMs old', async () => {
    const { registry, source, cache, advance, now } = setup();
    await registry.list();
    source.templates = [template('changed', 'en_US')];

    advance(REFRESH_MS);
    const listed = await registry.list();

    expect(source.calls).toBe(2);
    expect(listed.map((t) => t.name)).toEqual(['changed']);
    expect(cache.snapshot?.syncedAt).toBe(now());
  });

  it('falls back to the stale cache when the refresh fails, and warns how old it is', async () => {
    const { registry, source, cache, lines, advance } = setup();
    await registry.list();
    source.failWith = new CloudApiTransportError('timeout', new Error('headers timeout'));

    advance(2 * 3600_000);
    const listed = await registry.list();

    expect(listed.map((t) => t.language)).toEqual(['en_US', 'pt_BR']);
    expect(source.calls).toBe(2);
    expect(cache.writes).toBe(1);
    const warning = lines.find((l) => l.level === 40);
    expect(warning).toMatchObject({ msg: 'template refresh failed, serving the cached copy', ageSeconds: 7200, source: 'fake source' });
    expect((warning?.err as { code?: string } | undefined)?.code).toBe('CLOUD_API_TRANSPORT');
  });

  it('throws the source error when there is no cached copy to fall back on', async () => {
    const { registry, source } = setup();
    source.failWith = new CloudApiTransportError('connect', new Error('ECONNREFUSED'));
    await expect(registry.list()).rejects.toMatchObject({ code: 'CLOUD_API_TRANSPORT' });
  });

  it('ignores a cached copy written from another source', async () => {
    const { registry, source, cache, now } = setup();
    cache.snapshot = { templates: [template('other', 'en_US')], syncedAt: now(), source: 'another source' };

    const listed = await registry.list();

    expect(source.calls).toBe(1);
    expect(listed.map((t) => t.name)).toEqual(['order_update', 'order_update']);
  });

  it('shares one fetch between concurrent callers', async () => {
    const { registry, source } = setup();
    await Promise.all([registry.list(), registry.list(), registry.sync()]);
    expect(source.calls).toBe(1);
  });
});

describe('TemplateRegistry.sync', () => {
  it('fetches even when the cache is fresh and reports count, time and source', async () => {
    const { registry, source, cache, now } = setup();
    await registry.list();

    const result = await registry.sync();

    expect(result).toEqual({ count: 2, syncedAt: now(), source: 'fake source' });
    expect(source.calls).toBe(2);
    expect(cache.writes).toBe(2);
  });

  it('leaves the cached copy alone when the fetch fails', async () => {
    const { registry, source, cache } = setup();
    await registry.sync();
    const before = cache.snapshot;
    source.failWith = new Error('boom');
    await expect(registry.sync()).rejects.toThrow('boom');
    expect(cache.snapshot).toBe(before);
  });
});

describe('TemplateRegistry.find', () => {
  it('returns the template and every language with that name', async () => {
    const { registry } = setup([template('order_update', 'pt_BR'), template('order_update', 'en_US'), template('other', 'de')]);

    const found = await registry.find('order_update', 'en_US');

    expect(found.template?.language).toBe('en_US');
    expect(found.sameName.map((t) => t.language)).toEqual(['en_US', 'pt_BR']);
  });

  it('returns no template but the other languages when the language is missing', async () => {
    const { registry } = setup();
    const found = await registry.find('order_update', 'de');
    expect(found.template).toBeUndefined();
    expect('template' in found).toBe(false);
    expect(found.sameName.map((t) => t.language)).toEqual(['en_US', 'pt_BR']);
  });

  it('returns nothing for an unknown name', async () => {
    const { registry } = setup();
    expect(await registry.find('nope', 'en_US')).toEqual({ sameName: [] });
  });

  it("takes en-US for en_US (as some of Meta's pages write it): the template, with its own spelling", async () => {
    const { registry } = setup();
    expect((await registry.find('order_update', 'en-US')).template?.language).toBe('en_US');
    expect((await registry.find('order_update', 'pt-BR')).template?.language).toBe('pt_BR');
  });
});

describe('TemplateRegistry', () => {
  it('closes its source and refuses a negative refreshMs', async () => {
    const { registry, source, cache } = setup();
    await registry.close();
    expect(source.closed).toBe(1);
    expect(() => new TemplateRegistry({ source, cache, refreshMs: -1, logger: pino({ level: 'silent' }) })).toThrow(RangeError);
  });
});
