import type { RedisClient } from './key-scope.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { TemplateCache, TemplateSnapshot } from '../templates/template-registry.js';
import { messageTemplateSchema } from '../templates/template-schema.js';

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

  /** `scope` keeps sources apart: `waba:<id>` for the API, `file:<hash>` for a local file. */
  constructor(redis: RedisClient, options: { prefix: string; scope: string; logger: Logger }) {
    this.#redis = redis;
    this.#logger = options.logger;
    this.key = `${options.prefix}:templates:${options.scope}`;
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
}
