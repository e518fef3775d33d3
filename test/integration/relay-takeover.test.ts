import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRelayTargets, type RelayTarget } from '../../src/config/relay-targets.js';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisRelayStore } from '../../src/redis/relay/redis-relay-store.js';
import { relayLeaseKey } from '../../src/redis/relay/relay-keys.js';
import { RedisWebhookIntake } from '../../src/redis/webhooks/redis-webhook-intake.js';
import { RelayForwarder } from '../../src/relay/relay-forwarder.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';
import { RelayReceiver } from './relay-receiver.js';

/**
 * Nothing of the relay is held only in a process: a replica killed while it held a target's
 * lease is taken over from the cursor in Redis once the lease expires (nothing before the
 * cursor is sent again, nothing after it is lost), and two replicas forwarding at once send
 * each body once.
 */
describe('the relay across replicas', () => {
  let redis: Redis;
  let prefix: string;
  let receiver: RelayReceiver;
  let target: RelayTarget;
  const forwarders: RelayForwarder[] = [];

  beforeEach(async () => {
    redis = testRedis();
    prefix = freshPrefix('relay-takeover');
    receiver = await RelayReceiver.start();
    const targets = parseRelayTargets(receiver.url('/inbox'));
    if (typeof targets === 'string' || targets[0] === undefined) throw new Error(typeof targets === 'string' ? targets : 'no target');
    target = targets[0];
  });

  afterEach(async () => {
    for (const forwarder of forwarders.splice(0)) await forwarder.stop();
    await receiver.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  async function accept(bodies: string[]): Promise<void> {
    const intake = new RedisWebhookIntake(redis, prefix, { max: 1000, relay: true });
    for (const body of bodies) await intake.append(Buffer.from(body), createHash('sha256').update(body).digest('hex'), Date.now());
  }

  function forwarder(leaseMs = 30_000): RelayForwarder {
    const started = new RelayForwarder({
      redis,
      prefix,
      targets: [target],
      metaSecret: new Secret('meta-secret'),
      retryMs: 60_000,
      logger: silentLogger(),
      timing: { pollMs: 20, leaseMs },
    });
    forwarders.push(started);
    started.start();
    return started;
  }

  it("a killed replica's target is taken over from its cursor once its lease expires", async () => {
    await accept(['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}']);
    // The killed replica forwarded the first two and still held the lease when it died.
    const store = new RedisRelayStore(redis, prefix);
    const cursor = await store.cursor(target.name, 0);
    const [first, second] = await store.entriesAfter(cursor, 2);
    await store.holdLease(target.name, 'killed-replica', 800);
    for (const entry of [first, second])
      if (entry !== undefined) await store.advance(target.name, 'killed-replica', entry, 'forwarded', '', 0);

    forwarder(600);
    expect(await redis.get(relayLeaseKey(prefix, target.name))).toBe('killed-replica');
    await waitFor(() => receiver.accepted().length === 2, { what: 'the rest forwarded after the lease expired' });
    expect(receiver.accepted().map(String).sort()).toEqual(['{"n":3}', '{"n":4}']);
    expect(await redis.get(relayLeaseKey(prefix, target.name))).not.toBe('killed-replica');
  });

  it('posts several bodies at once to a receiver that takes its time, each once', async () => {
    receiver.mode = 'slow';
    const bodies = Array.from({ length: 16 }, (_, i) => `{"n":${i}}`);
    await accept(bodies);
    forwarder(3000);
    await waitFor(() => receiver.accepted().length >= bodies.length, { what: 'every body forwarded' });
    expect(receiver.accepted().map(String).sort()).toEqual([...bodies].sort());
    expect(receiver.received).toHaveLength(bodies.length);
    // One after another, 16 bodies at 150 ms would hold one request open at a time.
    expect(receiver.mostInFlight).toBeGreaterThan(1);
  });

  it('two replicas forwarding the same target send each body once', async () => {
    const bodies = Array.from({ length: 30 }, (_, i) => `{"n":${i}}`);
    // A non-holder tries for the lease every third of it: 1 s here.
    forwarder(3000);
    forwarder(3000);
    await accept(bodies.slice(0, 15));
    // A replica that stops gives its lease back: the other goes on at once.
    await waitFor(() => receiver.accepted().length >= 15, { what: 'the first half forwarded' });
    await forwarders[0]?.stop();
    await accept(bodies.slice(15));
    await waitFor(() => receiver.accepted().length >= bodies.length, { what: 'every body forwarded' });
    expect(receiver.accepted().map(String).sort()).toEqual([...bodies].sort());
    expect(receiver.received).toHaveLength(bodies.length);
  });
});
