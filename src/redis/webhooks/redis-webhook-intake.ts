import type { RedisClient } from '../key-scope.js';
import { LUA_DIR, loadLuaCommand } from '../lua-scripts.js';
import { relayKeys } from '../relay/relay-keys.js';
import { webhookKeys, type WebhookKeys } from './webhook-keys.js';

/** The intake's script (src/redis/lua/webhooks/append.lua): its header says why it is one step. */
const APPEND = loadLuaCommand('append', new URL('webhooks/', LUA_DIR));

interface IntakeCommands {
  cwWebhookAppend(
    inbox: string,
    held: string,
    intake: string,
    relay: string,
    relayStats: string,
    signature: string,
    body: Buffer,
    at: string,
    max: string,
    relayOn: '1' | '0',
    contentType: string,
  ): Promise<string[]>;
}

/** What became of a signed body: stored, dropped as a replay of one the inbox holds unconsumed, or refused (the inbox is full). */
export type WebhookAppendOutcome =
  { outcome: 'stored'; id: string } | { outcome: 'replay'; id: string } | { outcome: 'full'; held: number };

export interface WebhookIntakeOptions {
  /** WEBHOOK_INBOX_MAX: entries the inbox may hold unconsumed. */
  max: number;
  /** RELAY_WEBHOOKS names targets: each stored body goes to the relay stream too, in the same step. */
  relay?: boolean;
}

/** Appends signed webhook bodies to the inbox of `prefix`, at most `max` entries, each signature once while it is held. */
export class RedisWebhookIntake {
  readonly #redis: RedisClient & IntakeCommands;
  readonly #keys: WebhookKeys;
  readonly #relayStats: string;
  readonly #max: number;
  readonly #relay: boolean;

  constructor(redis: RedisClient, prefix: string, options: WebhookIntakeOptions) {
    const { max } = options;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`the webhook inbox's bound must be a whole number >= 1, not ${max}`);
    if (!('cwWebhookAppend' in redis)) redis.defineCommand('cwWebhookAppend', APPEND);
    this.#redis = redis as RedisClient & IntakeCommands;
    this.#keys = webhookKeys(prefix);
    this.#relayStats = relayKeys(prefix).stats;
    this.#max = max;
    this.#relay = options.relay ?? false;
  }

  /**
   * `signature`: the body's HMAC-SHA256 as 64 hex digits (any case); `contentType`: the request's, kept for the relay.
   * Rejects when Redis does not answer.
   */
  async append(body: Buffer, signature: string, receivedAt: number, contentType = ''): Promise<WebhookAppendOutcome> {
    const { inbox, held, intake, relay } = this.#keys;
    const sig = signature.toLowerCase();
    const [outcome, value] = await this.#redis.cwWebhookAppend(
      inbox,
      held,
      intake,
      relay,
      this.#relayStats,
      sig,
      body,
      String(receivedAt),
      String(this.#max),
      this.#relay ? '1' : '0',
      contentType,
    );
    if (outcome === 'stored' || outcome === 'replay') return { outcome, id: value ?? '' };
    if (outcome === 'full') return { outcome, held: Number(value) };
    throw new Error(`the webhook intake's script answered ${String(outcome)}`);
  }
}
