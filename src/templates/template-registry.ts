import type { Logger } from 'pino';
import type { TemplateInfo } from '../campaigns/template-status.js';
import type { MessageTemplate } from './template-schema.js';
import type { TemplateSource } from './template-source.js';
import { sameLanguage, translationKey } from './language-code.js';

/** What the cache holds: one whole list, when it was fetched and from where. */
export interface TemplateSnapshot {
  templates: MessageTemplate[];
  /** Epoch ms of the fetch. */
  syncedAt: number;
  /** `TemplateSource.describe()` of the source it came from. */
  source: string;
}

/** Shared storage of the last list fetched (Redis in production, a variable in tests). */
export interface TemplateCache {
  /** The stored snapshot, or undefined when there is none or it cannot be read back. */
  read(): Promise<TemplateSnapshot | undefined>;
  write(snapshot: TemplateSnapshot): Promise<void>;
  /** What Meta's quality and category webhooks last said, by "<name>\n<language>" (src/redis/templates/redis-template-info.ts). */
  templateInfos?(): Promise<ReadonlyMap<string, TemplateInfo>>;
}

export interface SyncResult {
  count: number;
  syncedAt: number;
  source: string;
}

export interface TemplateLookup {
  /** The template with that name and language, if any (any status: the caller decides). */
  template?: MessageTemplate;
  /** Every template with that name, sorted by language, so a caller can say which languages exist. */
  sameName: MessageTemplate[];
}

export interface TemplateRegistryOptions {
  source: TemplateSource;
  cache: TemplateCache;
  /** A cached list younger than this is served without asking the source; 0 = always ask. */
  refreshMs: number;
  now?: () => number;
  logger: Logger;
}

/**
 * The approved-template catalogue the commands (and later the producer) ask: served from the
 * shared cache, refreshed from the source when older than `refreshMs`. When a refresh fails
 * and an older copy exists, the older copy is served with a warning: a Cloud API outage
 * should not stop reading templates that were approved an hour ago.
 */
export class TemplateRegistry {
  readonly #source: TemplateSource;
  readonly #cache: TemplateCache;
  readonly #refreshMs: number;
  readonly #now: () => number;
  readonly #logger: Logger;
  /** One fetch at a time: concurrent callers share the sync in flight. */
  #syncing: Promise<TemplateSnapshot> | undefined;

  constructor(options: TemplateRegistryOptions) {
    if (!Number.isFinite(options.refreshMs) || options.refreshMs < 0) {
      throw new RangeError(`refreshMs must be a non-negative number, got ${options.refreshMs}`);
    }
    this.#source = options.source;
    this.#cache = options.cache;
    this.#refreshMs = options.refreshMs;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
  }

  /** The source's secret-free description. */
  describe(): string {
    return this.#source.describe();
  }

  /** Fetches the whole list from the source and replaces the cached copy. */
  async sync(): Promise<SyncResult> {
    const snapshot = await this.#sync();
    return { count: snapshot.templates.length, syncedAt: snapshot.syncedAt, source: snapshot.source };
  }

  /**
   * Every template (all statuses), from the cache while it is fresh, with the quality score and
   * category Meta's webhooks last gave it: Meta's latest word wins over the list (a template
   * moved to MARKETING is sent as marketing before the list is fetched again).
   */
  async list(): Promise<MessageTemplate[]> {
    const [templates, infos] = await Promise.all([this.#list(), this.#cache.templateInfos?.()]);
    return infos === undefined || infos.size === 0
      ? templates
      : templates.map((t) => withInfo(t, infos.get(translationKey(t.name, t.language))));
  }

  async #list(): Promise<MessageTemplate[]> {
    const cached = await this.#cachedFromThisSource();
    const now = this.#now();
    // A snapshot stamped in the future (another host's clock) counts as fresh.
    if (cached !== undefined && now - cached.syncedAt < this.#refreshMs) return cached.templates;
    try {
      return (await this.#sync()).templates;
    } catch (error) {
      if (cached === undefined) throw error;
      this.#logger.warn(
        {
          err: error,
          source: cached.source,
          syncedAt: new Date(cached.syncedAt).toISOString(),
          ageSeconds: Math.round((now - cached.syncedAt) / 1000),
        },
        'template refresh failed, serving the cached copy',
      );
      return cached.templates;
    }
  }

  async find(name: string, language: string): Promise<TemplateLookup> {
    const sameName = (await this.list()).filter((t) => t.name === name).sort((a, b) => compare(a.language, b.language));
    const template = sameName.find((t) => sameLanguage(t.language, language));
    return template === undefined ? { sameName } : { template, sameName };
  }

  /** Releases what the source holds open (the API source's connection pool). */
  async close(): Promise<void> {
    await this.#source.close?.();
  }

  /** A snapshot written from another source (another API URL or version for the same WABA, a moved file) is not this list. */
  async #cachedFromThisSource(): Promise<TemplateSnapshot | undefined> {
    const cached = await this.#cache.read();
    if (cached === undefined || cached.source === this.#source.describe()) return cached;
    this.#logger.info(
      { source: this.#source.describe(), cachedSource: cached.source },
      'cached templates are from another source, ignoring them',
    );
    return undefined;
  }

  #sync(): Promise<TemplateSnapshot> {
    this.#syncing ??= this.#fetchAndStore().finally(() => {
      this.#syncing = undefined;
    });
    return this.#syncing;
  }

  async #fetchAndStore(): Promise<TemplateSnapshot> {
    const started = this.#now();
    const templates = await this.#source.fetchAll();
    const snapshot: TemplateSnapshot = { templates, syncedAt: this.#now(), source: this.#source.describe() };
    await this.#cache.write(snapshot);
    this.#logger.debug({ source: snapshot.source, count: templates.length, durationMs: snapshot.syncedAt - started }, 'templates synced');
    return snapshot;
  }
}

function withInfo(template: MessageTemplate, info: TemplateInfo | undefined): MessageTemplate {
  if (info === undefined) return template;
  return {
    ...template,
    ...(info.category === undefined ? {} : { category: info.category.value }),
    ...(info.quality === undefined ? {} : { quality_score: { ...template.quality_score, score: info.quality.value } }),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
