import type { Logger } from '../../logging/logger.js';
import { HookDispatcher } from '../../hooks/hook-dispatcher.js';
import type { PostDelivery } from '../../hooks/hook-delivery.js';
import type { RedisClient } from '../key-scope.js';
import { EventFanout } from '../events/event-fanout.js';
import { connectionReady } from '../redis-connection.js';
import { RedisHookOutbox } from './redis-hook-outbox.js';
import { RedisHookRegistry } from './redis-hook-registry.js';
import { RedisHookLeases } from './redis-leases.js';

export interface OutboundHooksOptions {
  redis: RedisClient;
  prefix: string;
  /** HOOK_RETRY_HOURS in ms. */
  retryMs: number;
  logger: Logger;
  post?: PostDelivery;
}

/** `serve`'s outbound hooks: the fanout from the numbers' event streams to the hooks' outboxes, and each hook's delivery. */
export interface OutboundHooks {
  stop(): Promise<void>;
}

/** Starts the fanout and the deliveries (each its own loop, on the given connection); stop() ends both and gives their leases back. */
export function startOutboundHooks(options: OutboundHooksOptions): OutboundHooks {
  const { redis, prefix, logger } = options;
  const fanout = new EventFanout({ redis, prefix, logger });
  const registry = new RedisHookRegistry(redis, prefix);
  const dispatcher = new HookDispatcher({
    hooks: () => registry.all(),
    leases: new RedisHookLeases(redis, prefix),
    outboxOf: (name) => new RedisHookOutbox(redis, prefix, name),
    retryMs: options.retryMs,
    logger,
    ...(options.post === undefined ? {} : { post: options.post }),
    ready: () => connectionReady(redis),
  });
  fanout.start();
  dispatcher.start();
  return {
    stop: async () => {
      await Promise.all([fanout.stop(), dispatcher.stop()]);
    },
  };
}
