import { randomBytes } from 'node:crypto';
import type { AppContext } from './app-context.js';
import { campaignNotFound } from '../campaigns/campaign-not-found.js';
import { AppError } from '../errors/app-error.js';
import type { DeadHookEvent, HookDefinition, HookView } from '../hooks/hook.js';
import { hookBatchRequest, hookTestEvent } from '../hooks/hook-batch.js';
import { parseHookEvents } from '../hooks/hook-events.js';
import { checkHookName, hookNotFound, nameFromUrl } from '../hooks/hook-name.js';
import { parseHookUrl } from '../hooks/hook-url.js';
import { postDelivery } from '../outbound/signed-post.js';
import { markCampaignsForEvents } from '../redis/events/campaign-event-flags.js';
import { RedisHookOutbox } from '../redis/hooks/redis-hook-outbox.js';
import { RedisHookRegistry, type StoredHook } from '../redis/hooks/redis-hook-registry.js';
import { campaignNumbersKey } from '../redis/ledger/ledger-keys.js';

/**
 * Outbound hooks (docs/events.md): URLs of the sender's own systems that `serve` POSTs the
 * chosen campaign events to, in signed batches, at least once. The CLI, the API and the pages
 * call these; the delivery itself runs in `serve` (src/hooks/hook-dispatcher.ts).
 */
export type HooksContext = Pick<AppContext, 'config' | 'redis'>;

export interface AddHookInput {
  url: string;
  /** Event names, `all`, `row.*` or `campaign.*`; each item may be a comma-separated list. */
  events: readonly string[];
  /** Only this campaign's events. */
  campaignId?: string | undefined;
  /** Default: from the URL's host. */
  name?: string | undefined;
}

/** Dead letters `failedHookEvents` shows when no limit is given. */
const DEFAULT_FAILED_LIMIT = 100;
/** Tries for a free name derived from the URL (`host`, `host-2`, …) before asking for --name. */
const DERIVED_NAME_TRIES = 20;

/**
 * Adds a hook: its secret is answered here once and never shown again (only its signatures
 * are). Adding turns the events on for every campaign, after the hook is registered, so no
 * campaign emits an event before a hook can receive it and none is missed.
 */
export async function addHook(context: HooksContext, input: AddHookInput): Promise<{ hook: HookView; secret: string }> {
  const url = parseHookUrl(input.url);
  const events = parseHookEvents(input.events);
  if (input.name !== undefined) checkHookName(input.name);
  if (input.campaignId !== undefined) await checkCampaignExists(context, input.campaignId);
  const registry = registryOf(context);
  const secret = randomBytes(32).toString('base64url');
  const definitionNamed = (name: string): HookDefinition => ({
    name,
    url: url.href,
    events,
    ...(input.campaignId === undefined ? {} : { campaignId: input.campaignId }),
    createdAt: Date.now(),
  });
  const candidates = input.name !== undefined ? [input.name] : derivedNames(nameFromUrl(url));
  for (const name of candidates) {
    const definition = definitionNamed(name);
    const { added } = await registry.add(definition, secret);
    if (!added) continue;
    // Every add, not only the first: an add that stopped before this (a crash) is made good by the next.
    await markCampaignsForEvents(context.redis, context.config.queuePrefix, true);
    return { hook: { ...definition, figures: await registry.figures(name) }, secret };
  }
  throw new AppError(
    'HOOK_INVALID',
    input.name !== undefined
      ? `--name ${input.name}: a hook of that name exists; choose another --name, or \`campaign hooks remove ${input.name}\` first`
      : `A name from the URL's host (${nameFromUrl(url)}) is taken: give one with --name`,
  );
}

export async function listHooks(context: HooksContext): Promise<HookView[]> {
  const registry = registryOf(context);
  const hooks = await registry.all();
  return Promise.all(hooks.map(async ({ definition }) => ({ ...definition, figures: await registry.figures(definition.name) })));
}

export async function showHook(context: HooksContext, name: string): Promise<HookView> {
  const { definition } = await storedHook(context, name);
  return { ...definition, figures: await registryOf(context).figures(name) };
}

/** Removes the hook with its waiting events and dead letters; the last one turns the campaigns' events off. */
export async function removeHook(context: HooksContext, name: string): Promise<void> {
  const registry = registryOf(context);
  const { removed, hooks } = await registry.remove(name);
  if (!removed) throw hookNotFound(name);
  if (hooks > 0) return;
  await markCampaignsForEvents(context.redis, context.config.queuePrefix, false);
  // A hook added while the flags were cleared must find them set: whichever ran second wins.
  if ((await registry.all()).length > 0) await markCampaignsForEvents(context.redis, context.config.queuePrefix, true);
}

/** Sends one `hook.test` batch to the hook now, signed as every batch is, and answers what the receiver said. */
export async function testHook(context: HooksContext, name: string): Promise<{ ok: boolean; status: number; reason?: string }> {
  const { definition, secret } = await storedHook(context, name);
  const now = Date.now();
  const request = hookBatchRequest(definition.name, [hookTestEvent(now)], secret.reveal(), now);
  const answer = await postDelivery(definition.url, request.body, request.headers);
  return answer.ok ? { ok: true, status: answer.status } : { ok: false, status: answer.status, reason: answer.reason };
}

/** The hook's dead letters, oldest first: events retried for HOOK_RETRY_HOURS and given up on. */
export async function failedHookEvents(context: HooksContext, name: string, limit = DEFAULT_FAILED_LIMIT): Promise<DeadHookEvent[]> {
  await storedHook(context, name);
  return outboxOf(context, name).list(limit);
}

/** Every dead letter of the hook back into its outbox, to be delivered (and retried) again. */
export async function redeliverHook(context: HooksContext, name: string): Promise<{ redelivered: number }> {
  await storedHook(context, name);
  return { redelivered: await outboxOf(context, name).redeliver(Date.now()) };
}

async function storedHook(context: HooksContext, name: string): Promise<StoredHook> {
  const hook = await registryOf(context).get(name);
  if (hook === undefined) throw hookNotFound(name);
  return hook;
}

async function checkCampaignExists(context: HooksContext, campaignId: string): Promise<void> {
  const number = await context.redis.hget(campaignNumbersKey(context.config.queuePrefix), campaignId);
  if (number === null) throw campaignNotFound(campaignId);
}

function derivedNames(base: string): string[] {
  const names = [base];
  for (let n = 2; n <= DERIVED_NAME_TRIES; n += 1) names.push(`${base.slice(0, 60)}-${n}`);
  return names;
}

function registryOf(context: HooksContext): RedisHookRegistry {
  return new RedisHookRegistry(context.redis, context.config.queuePrefix);
}

function outboxOf(context: HooksContext, name: string): RedisHookOutbox {
  return new RedisHookOutbox(context.redis, context.config.queuePrefix, name);
}
