import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { CloudApiTemplateSource } from '../cloud-api/templates-client.js';
import { AppError } from '../errors/app-error.js';
import { RedisTemplateCache } from '../redis/templates/redis-template-cache.js';
import { TemplateRegistry, type SyncResult } from '../templates/template-registry.js';
import { FileTemplateSource, type TemplateSource } from '../templates/template-source.js';
import type { AppContext } from './app-context.js';
import { templateListing, type TemplateListing } from './views/template-view.js';

export interface TemplatesOptions {
  /** `--templates FILE`: wins over TEMPLATES_FILE and the API. */
  file?: string | undefined;
}

export interface TemplatesListOptions extends TemplatesOptions {
  /** Every status, not only APPROVED. */
  all?: boolean | undefined;
}

type RegistryContext = Pick<AppContext, 'config' | 'logger' | 'redis'>;

/**
 * The registry for this configuration. Source: `--templates FILE`, else TEMPLATES_FILE, else
 * the Cloud API for WHATSAPP_BUSINESS_ACCOUNT_ID (with WHATSAPP_ACCESS_TOKEN). A file is
 * re-read on every list (refreshMs 0: it costs nothing, and an edited file shows at once;
 * the cached copy remains the fallback if it becomes unreadable); the API list is cached for
 * TEMPLATES_REFRESH_SECONDS.
 */
export function buildTemplateRegistry(context: RegistryContext, options: TemplatesOptions = {}): TemplateRegistry {
  const { config, logger, redis } = context;
  const file = options.file ?? config.templates.file;
  let source: TemplateSource;
  let scope: string;
  let refreshMs: number;
  if (file !== undefined) {
    source = new FileTemplateSource(file);
    scope = `file:${createHash('sha256').update(resolve(file)).digest('hex').slice(0, 16)}`;
    refreshMs = 0;
  } else {
    const businessAccountId = config.templates.businessAccountId;
    if (businessAccountId === undefined) {
      throw new AppError(
        'CONFIG_INVALID',
        'No template source: set WHATSAPP_BUSINESS_ACCOUNT_ID (and WHATSAPP_ACCESS_TOKEN) to read approved ' +
          'templates from the Cloud API, or TEMPLATES_FILE / --templates FILE for a local copy',
      );
    }
    if (config.accessToken === undefined) {
      throw new AppError(
        'CONFIG_INVALID',
        'WHATSAPP_BUSINESS_ACCOUNT_ID is set but WHATSAPP_ACCESS_TOKEN is not: the Cloud API needs the ' +
          'token to list templates (or use TEMPLATES_FILE / --templates FILE)',
      );
    }
    source = new CloudApiTemplateSource({
      baseUrl: config.api.baseUrl,
      apiVersion: config.api.version,
      businessAccountId,
      accessToken: config.accessToken,
      timeoutMs: config.api.timeoutMs,
      logger,
    });
    scope = `waba:${businessAccountId}`;
    refreshMs = config.templates.refreshMs;
  }
  const cache = new RedisTemplateCache(redis, { prefix: config.queuePrefix, scope, logger });
  return new TemplateRegistry({ source, cache, refreshMs, logger });
}

/** `campaign templates sync`: fetches the whole list now and replaces the cached copy. */
export async function syncTemplates(context: RegistryContext, options: TemplatesOptions = {}): Promise<SyncResult> {
  const registry = buildTemplateRegistry(context, options);
  try {
    return await registry.sync();
  } finally {
    await registry.close();
  }
}

/** `campaign templates list` and GET /templates: the cached list (refreshed when stale), APPROVED only unless `all`. */
export async function listTemplates(context: RegistryContext, options: TemplatesListOptions = {}): Promise<TemplateListing> {
  const registry = buildTemplateRegistry(context, options);
  try {
    return templateListing(await registry.list(), { all: options.all });
  } finally {
    await registry.close();
  }
}
