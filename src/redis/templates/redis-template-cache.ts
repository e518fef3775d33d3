import type { RedisClient } from '../key-scope.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { TemplateInfo } from '../../campaigns/template-status.js';
import type { TemplateCache, TemplateSnapshot } from '../../templates/template-registry.js';
import { messageTemplateSchema } from '../../templates/template-schema.js';
import { RedisTemplateInfo } from './redis-template-info.js';

const snapshotSchema = z.object({
  source: z.string(),
  syncedAt: z.number().int().nonnegative(),
  templates: z.array(messageTemplateSchema),
});

/**
 * The template list in Redis: one key, `${prefix}:templates:${scope}`, holding the whole
 * snapshot as JSON (a WABA's list is at most a few thousand templates, read whole every time).
 * No TTL: an old copy is what the registry falls back on when the source is down.
 */
export class RedisTemplateCache implements TemplateCache {
  readonly #redis: RedisClient;
  readonly #logger: Logger;
  readonly key: string;
  readonly #infos: RedisTemplateInfo;

  /** `scope` keeps sources apart: `waba:<id>` for the API, `file:<hash>` for a local file. */
  constructor(redis: RedisClient, options: { prefix: string; scope: string; logger: Logger }) {
    this.#redis = redis;
    this.#logger = options.logger;
    this.key = `${options.prefix}:templates:${options.scope}`;
    this.#infos = new RedisTemplateInfo(redis, options.prefix);
  }

  async read(): Promise<TemplateSnapshot | undefined> {
    const json = await this.#redis.get(this.key);
    if (json === null) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      this.#logger.warn({ key: this.key, problem: 'not JSON' }, 'template cache unreadable, ignoring it');
      return undefined;
    }
    const parsed = snapshotSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.#logger.warn(
        { key: this.key, problem: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` },
        'template cache unreadable, ignoring it',
      );
      return undefined;
    }
    return parsed.data;
  }

  async write(snapshot: TemplateSnapshot): Promise<void> {
    await this.#redis.set(this.key, JSON.stringify(snapshot));
  }

  /** Meta's quality and category webhooks, for every source of this prefix (they name the template, not the list). */
  templateInfos(): Promise<ReadonlyMap<string, TemplateInfo>> {
    return this.#infos.all();
  }
}
