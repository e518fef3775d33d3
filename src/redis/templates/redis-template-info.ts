import { z } from 'zod';
import type { TemplateInfo, TemplateInfoUpdate } from '../../campaigns/template-status.js';
import type { RedisClient } from '../key-scope.js';
import { translationKey } from '../../templates/language-code.js';

/**
 * What Meta's template webhooks last said of each template (quality score, category), one
 * hash for the deployment: `${prefix}:templates:meta-updates`, field "<name>\n<language>" →
 * TemplateInfo JSON. The template registry lays it over the list it serves (the webhook is
 * Meta's latest word); the campaigns page shows it. No TTL: a few bytes per template.
 */
export function templateInfoKey(prefix: string): string {
  return `${prefix}:templates:meta-updates`;
}

const said = z.object({ value: z.string(), previous: z.string(), at: z.number() });
const infoSchema = z.object({ quality: said.optional(), category: said.optional() });

/** One field per translation, however its language is written (`en_US`, `en-US`). */
const fieldOf = translationKey;

export class RedisTemplateInfo {
  readonly #redis: RedisClient;
  readonly #key: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#key = templateInfoKey(prefix);
  }

  /** Records each update unless one of its kind already recorded for the template is newer. */
  async record(updates: readonly TemplateInfoUpdate[]): Promise<void> {
    for (const u of updates) {
      const field = fieldOf(u.name, u.language);
      const info = parse(await this.#redis.hget(this.#key, field)) ?? {};
      const current = info[u.kind];
      if (current !== undefined && current.at > u.at) continue;
      info[u.kind] = { value: u.value, previous: u.previous, at: u.at };
      await this.#redis.hset(this.#key, field, JSON.stringify(info));
    }
  }

  async of(name: string, language: string): Promise<TemplateInfo | undefined> {
    return parse(await this.#redis.hget(this.#key, fieldOf(name, language)));
  }

  /** Every template's, by "<name>\n<language>" (templateInfoOf finds one). */
  async all(): Promise<ReadonlyMap<string, TemplateInfo>> {
    const fields = await this.#redis.hgetall(this.#key);
    const infos = new Map<string, TemplateInfo>();
    for (const [field, json] of Object.entries(fields)) {
      const info = parse(json);
      if (info !== undefined) infos.set(field, info);
    }
    return infos;
  }
}

/** A template's entry in `all()`'s map. */
export function templateInfoOf(infos: ReadonlyMap<string, TemplateInfo>, name: string, language: string): TemplateInfo | undefined {
  return infos.get(fieldOf(name, language));
}

/** Unreadable (another version's, hand-edited) is treated as nothing recorded. */
function parse(json: string | null | undefined): TemplateInfo | undefined {
  if (json === null || json === undefined) return undefined;
  try {
    const parsed = infoSchema.safeParse(JSON.parse(json));
    return parsed.success ? withoutUndefined(parsed.data) : undefined;
  } catch {
    return undefined;
  }
}

function withoutUndefined(info: z.infer<typeof infoSchema>): TemplateInfo {
  return {
    ...(info.quality === undefined ? {} : { quality: info.quality }),
    ...(info.category === undefined ? {} : { category: info.category }),
  };
}
