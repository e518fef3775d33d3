import { z } from 'zod';
import type { AccountError, AccountErrorLog } from '../../campaigns/settle/account-errors.js';
import type { RedisClient } from '../key-scope.js';
import { webhookKeys } from '../webhooks/webhook-keys.js';

/** How many of the newest are kept: enough for the page to show what happened lately; a flood cannot grow the list. */
export const ACCOUNT_ERRORS_KEPT = 50;

const accountErrorSchema = z.object({
  phoneNumberId: z.string(),
  code: z.string(),
  title: z.string(),
  details: z.string(),
  at: z.number(),
});

/** The newest account-level errors Meta reported by webhook, for the campaigns page: one short list for the deployment. */
export class RedisAccountErrors implements AccountErrorLog {
  readonly #redis: RedisClient;
  readonly #key: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#key = webhookKeys(prefix).accountErrors;
  }

  async record(errors: readonly AccountError[]): Promise<void> {
    if (errors.length === 0) return;
    await this.#redis
      .multi()
      .lpush(this.#key, ...errors.map((e) => JSON.stringify(e)))
      .ltrim(this.#key, 0, ACCOUNT_ERRORS_KEPT - 1)
      .exec();
  }

  /** Newest first; an entry another version wrote that does not read is left out. */
  async recent(): Promise<AccountError[]> {
    const entries = await this.#redis.lrange(this.#key, 0, ACCOUNT_ERRORS_KEPT - 1);
    const errors: AccountError[] = [];
    for (const json of entries) {
      try {
        const parsed = accountErrorSchema.safeParse(JSON.parse(json));
        if (parsed.success) errors.push(parsed.data);
      } catch {
        // Not JSON: not ours to show.
      }
    }
    return errors;
  }
}
