import { createHmac } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRelayTargets } from '../../src/config/relay-targets.js';
import { silentLogger } from '../../src/logging/logger.js';
import { relayDeadKey, relayKeys } from '../../src/redis/relay/relay-keys.js';
import { Secret } from '../../src/config/secret.js';
import { RelayForwarder } from '../../src/relay/relay-forwarder.js';
import { readRelayFigures } from '../../src/redis/relay/relay-figures.js';
import { RedisWebhookInbox } from '../../src/webhooks/webhook-inbox.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { waitFor, within } from '../support/waiting.js';
import { parseExposition, samplesOf } from './metrics-exposition.js';
import { RelayReceiver, signedWith } from './relay-receiver.js';

/**
 * `campaign serve` with RELAY_WEBHOOKS naming two receivers, a chat inbox with an app secret of
 * its own and a bot without one: each gets every webhook the service accepted from Meta, the
 * same bytes, signed for it (the bot gets Meta's own signature), each once; a receiver that fails
 * gets them once it recovers while the other is not held back; one that never answers does not
 * delay Meta's 200; one that stays away past HOOK_RETRY_HOURS leaves them in its dead letters.
 */
const META_SECRET = 'relay-meta-app-secret';
const INBOX_SECRET = 'chat-inbox-own-app-secret';

/** Meta's webhooks as bytes no re-serialisation would keep: spacing, escapes, non-ASCII. */
const BODIES = [
  '{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[]}]}',
  '{ "object" : "whatsapp_business_account",\n  "entry" : [ { "id" : "2", "changes" : [ ] } ] }',
  '{"object":"whatsapp_business_account","entry":[{"id":"3","changes":[]}],"note":"café ☕ \\u00e9"}',
  '{"object":"whatsapp_business_account","entry":[{"id":"4","changes":[]}]}\n',
].map((text) => Buffer.from(text, 'utf8'));

/** POSTs `body` to /webhook as Meta does (signed with the app secret); the answer's status. */
async function postAsMeta(serviceUrl: string, body: Buffer, contentType = 'application/json'): Promise<number> {
  const signature = `sha256=${createHmac('sha256', META_SECRET).update(body).digest('hex')}`;
  const answer = await fetch(`${serviceUrl}/webhook`, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType, 'x-hub-signature-256': signature },
  });
  return answer.status;
}

describe('campaign serve: RELAY_WEBHOOKS', () => {
  let redis: Redis;
  let prefix: string;
  let inbox: RelayReceiver;
  let bot: RelayReceiver;
  let service: RunningService | undefined;
  let names: { inbox: string; bot: string };

  beforeEach(async () => {
    redis = testRedis();
    prefix = freshPrefix('relay');
    inbox = await RelayReceiver.start();
    bot = await RelayReceiver.start();
  });

  afterEach(async () => {
    await service?.close();
    service = undefined;
    await inbox.close();
    await bot.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  async function serve(extra: Record<string, string> = {}): Promise<RunningService> {
    const relay = `${inbox.url('/meta')}|${INBOX_SECRET}, ${bot.url('/bot/webhook')}`;
    const targets = parseRelayTargets(relay);
    if (typeof targets === 'string') throw new Error(targets);
    names = { inbox: targets[0]?.name ?? '', bot: targets[1]?.name ?? '' };
    const env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      WHATSAPP_APP_SECRET: META_SECRET,
      WEBHOOK_VERIFY_TOKEN: 'verify',
      RELAY_WEBHOOKS: relay,
      ...extra,
    };
    service = await startService({ port: 0, host: '127.0.0.1' }, env, silentLogger());
    return service;
  }

  async function relayFigure(name: string, target: string): Promise<number | undefined> {
    const text = await (await fetch(`${service?.url ?? ''}/metrics`)).text();
    return samplesOf(parseExposition(text), name, { target })[0]?.value;
  }

  it('each receiver gets every webhook byte for byte, signed with its own secret or Meta’s; counted', async () => {
    const url = (await serve()).url;
    for (const [i, body] of BODIES.entries()) {
      expect(await postAsMeta(url, body, i === 2 ? 'application/json; charset=utf-8' : 'application/json')).toBe(200);
    }

    await waitFor(() => inbox.accepted().length === BODIES.length && bot.accepted().length === BODIES.length, {
      what: 'both receivers got every webhook',
      explain: () => `inbox ${inbox.received.length}, bot ${bot.received.length}`,
    });
    expect(sortedBodies(inbox.accepted())).toEqual(sortedBodies(BODIES));
    expect(sortedBodies(bot.accepted())).toEqual(sortedBodies(BODIES));
    // Each once: nothing was sent twice.
    expect(inbox.received).toHaveLength(BODIES.length);
    expect(bot.received).toHaveLength(BODIES.length);
    for (const got of inbox.received) {
      expect(signedWith(got, INBOX_SECRET)).toBe(true);
      expect(signedWith(got, META_SECRET)).toBe(false);
      expect(got.headers['x-campaign-relay']).toBe(names.inbox);
    }
    for (const got of bot.received) {
      // Without a secret of its own the bot gets Meta's signature: it checks it as it would check Meta's.
      expect(signedWith(got, META_SECRET)).toBe(true);
      expect(got.headers['x-campaign-relay']).toBe(names.bot);
    }
    expect(inbox.received.map((got) => got.headers['content-type'])).toEqual([
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'application/json',
    ]);

    await waitFor(() => relayFigure('campaign_relay_webhooks_forwarded_total', names.bot), {
      what: 'the forwarded count of the bot on /metrics',
      until: (n) => n === BODIES.length,
    });
    for (const target of [names.inbox, names.bot]) {
      expect(await relayFigure('campaign_relay_webhooks_forwarded_total', target)).toBe(BODIES.length);
      expect(await relayFigure('campaign_relay_webhooks_waiting', target)).toBe(0);
      expect(await relayFigure('campaign_relay_lag_seconds', target)).toBe(0);
      expect(await relayFigure('campaign_relay_webhooks_dead_total', target)).toBe(0);
    }
  });

  it('a receiver that answers 500 gets every webhook once it recovers, each once; the other is not held back', async () => {
    bot.mode = 'fail';
    const url = (await serve()).url;
    for (const body of BODIES) expect(await postAsMeta(url, body)).toBe(200);

    await waitFor(() => inbox.accepted().length === BODIES.length && bot.received.length > 0, {
      what: 'the inbox got every webhook while the bot failed',
    });
    expect(bot.accepted()).toHaveLength(0);
    // While it fails, its first webhook is retried on its own; the others wait behind it.
    await waitFor(() => bot.received.filter((got) => got.body.equals(BODIES[0] ?? Buffer.alloc(0))).length >= 2, {
      what: "the bot's first webhook retried",
      timeoutMs: 10_000,
    });

    bot.mode = 'ok';
    await waitFor(() => bot.accepted().length === BODIES.length, {
      what: 'the bot got every webhook after it recovered',
      // Its next attempt comes after the backoff it reached while failing: 1 s, 2 s on a slow machine.
      timeoutMs: 20_000,
      explain: () => `bot got ${bot.received.length} POSTs`,
    });
    // Posted several at once once it takes them (as Meta posts): each once, whatever their order of arrival.
    expect(sortedBodies(bot.accepted())).toEqual(sortedBodies(BODIES));
    for (const got of bot.received) expect(signedWith(got, META_SECRET)).toBe(true);
    expect(await relayFigure('campaign_relay_webhooks_retried_total', names.bot)).toBeGreaterThanOrEqual(1);
    expect(await relayFigure('campaign_relay_webhooks_retried_total', names.inbox)).toBe(0);
  });

  it('a receiver that never answers does not delay the answer to Meta', async () => {
    bot.mode = 'hang';
    const url = (await serve()).url;
    for (const body of BODIES.slice(0, 2)) {
      expect(await within(3000, postAsMeta(url, body), () => 'POST /webhook answered')).toBe(200);
    }
    await waitFor(() => inbox.accepted().length === 2 && bot.received.length >= 1, {
      what: 'the inbox got both webhooks; the bot holds what it got',
    });
    // Posted while the bot still holds its first: answered at once all the same.
    expect(await within(3000, postAsMeta(url, BODIES[2] ?? Buffer.alloc(0)), () => 'POST /webhook answered')).toBe(200);
    await waitFor(() => inbox.accepted().length === 3, { what: 'the inbox got the third webhook' });
  });

  it('a receiver still failing after HOOK_RETRY_HOURS leaves the webhook in its dead letters', async () => {
    bot.mode = 'fail';
    // 0.72 s: dead at the first retry.
    const url = (await serve({ HOOK_RETRY_HOURS: '0.0002' })).url;
    const body = BODIES[2] ?? Buffer.alloc(0);
    expect(await postAsMeta(url, body)).toBe(200);

    const dead = relayDeadKey(prefix, names.bot);
    const [letter] = await waitFor(async () => (await redis.xrangeBuffer(dead, '-', '+')) as [Buffer, Buffer[]][], {
      what: "a dead letter in the bot's stream",
      timeoutMs: 15_000,
      until: (letters) => letters.length > 0,
    });
    const fields = new Map<string, Buffer>();
    for (let i = 0; i + 1 < (letter?.[1].length ?? 0); i += 2)
      fields.set(letter?.[1][i]?.toString() ?? '', letter?.[1][i + 1] ?? Buffer.alloc(0));
    expect(fields.get('body')).toEqual(body);
    expect(fields.get('reason')?.toString()).toBe('HTTP 500');
    expect(fields.get('type')?.toString()).toBe('application/json');
    expect(bot.received.length).toBeGreaterThanOrEqual(2);

    expect(inbox.accepted()).toEqual([body]);
    expect(await relayFigure('campaign_relay_webhooks_dead_total', names.bot)).toBe(1);
    expect(await relayFigure('campaign_relay_webhooks_waiting', names.bot)).toBe(0);
    expect(await redis.xlen(relayDeadKey(prefix, names.inbox))).toBe(0);
  });
});

describe('the intake relays what it stored, and only that', () => {
  let redis: Redis;
  let prefix: string;
  let receiver: RelayReceiver;
  let forwarder: RelayForwarder | undefined;

  beforeEach(async () => {
    redis = testRedis();
    prefix = freshPrefix('relay-intake');
    receiver = await RelayReceiver.start();
  });

  afterEach(async () => {
    await forwarder?.stop();
    forwarder = undefined;
    await receiver.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  const signature = (body: Buffer): string => createHmac('sha256', META_SECRET).update(body).digest('hex');

  it('a replay the inbox drops (same signature, held unconsumed) and a body refused when full are not relayed', async () => {
    // No consumer runs: the inbox holds what it stored, so the second POST of a body is a replay; it holds one at most.
    const intake = new RedisWebhookInbox(redis, prefix, { max: 2, relay: true });
    const [first, second, third] = BODIES as [Buffer, Buffer, Buffer];
    expect(await intake.append(first, Date.now(), signature(first), 'application/json')).toEqual({ outcome: 'stored' });
    expect(await intake.append(first, Date.now(), signature(first), 'application/json')).toEqual({ outcome: 'replay' });
    expect(await intake.append(second, Date.now(), signature(second), 'application/json')).toEqual({ outcome: 'stored' });
    expect(await intake.append(third, Date.now(), signature(third), 'application/json')).toEqual({ outcome: 'full', held: 2 });
    expect(await redis.xlen(relayKeys(prefix).relay)).toBe(2);

    const targets = parseRelayTargets(receiver.url('/inbox'));
    if (typeof targets === 'string') throw new Error(targets);
    forwarder = new RelayForwarder({
      redis,
      prefix,
      targets,
      metaSecret: new Secret(META_SECRET),
      retryMs: 60_000,
      logger: silentLogger(),
      timing: { pollMs: 20 },
    });
    forwarder.start();
    const name = targets[0]?.name ?? '';
    // Waiting 0: the cursor is past the last entry the relay stream holds, so nothing more will come.
    await waitFor(async () => (await readRelayFigures(redis, prefix, [name], Date.now()))[0], {
      what: 'the target done with the relay stream',
      until: (figures) => figures?.forwarded === 2 && figures.waiting === 0,
    });
    expect(sortedBodies(receiver.accepted())).toEqual(sortedBodies([first, second]));
    expect(receiver.received).toHaveLength(2);
  });
});

/** Bodies in a fixed order (bytewise), to compare which arrived regardless of when. */
function sortedBodies(bodies: readonly Buffer[]): Buffer[] {
  return [...bodies].sort((a, b) => Buffer.compare(a, b));
}
