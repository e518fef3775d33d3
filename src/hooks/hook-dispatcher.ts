import { randomUUID } from 'node:crypto';
import type { Secret } from '../config/secret.js';
import type { Logger } from '../logging/logger.js';
import type { HookDefinition } from './hook.js';
import { HookDelivery, type PostDelivery } from './hook-delivery.js';
import type { HookOutbox } from './hook-outbox.js';
import { RepeatingTask } from './repeating-task.js';

/** A lease per hook: the one `serve` replica holding it delivers the hook (src/redis/lua/leases/lease.lua). */
export interface HookLeases {
  /** Takes or renews the lease for `ttlMs`: whether the caller holds it now. */
  take(name: string, token: string, ttlMs: number): Promise<boolean>;
  release(name: string, token: string): Promise<void>;
}

export interface HookDispatcherOptions {
  /** Every hook now, with its secret. */
  hooks: () => Promise<{ definition: HookDefinition; secret: Secret }[]>;
  leases: HookLeases;
  outboxOf: (name: string) => HookOutbox;
  retryMs: number;
  logger: Logger;
  post?: PostDelivery;
  /** How often the hooks are read again and the leases renewed. */
  tickMs?: number;
  /** How long a lease lasts unrenewed: how soon another replica takes over a hook from one that died. */
  leaseMs?: number;
  /** How long stopping waits for a batch in flight. */
  stopBoundMs?: number;
  /** Whether the hooks' connection takes commands now (RepeatingTask): nothing is tried, or reported, while it does not. */
  ready?: () => boolean;
}

const DEFAULT_TICK_MS = 1000;
const DEFAULT_LEASE_MS = 5000;
const DEFAULT_STOP_BOUND_MS = 2000;

/**
 * `serve`'s deliveries: one delivery loop per hook, each on its own, so a slow or dead receiver
 * holds up only its own hook. Each second it reads the hooks again (one added starts, one
 * removed stops) and renews its leases: with several replicas, each hook is delivered by one.
 */
export class HookDispatcher {
  readonly #options: HookDispatcherOptions;
  readonly #token = randomUUID();
  readonly #running = new Map<string, { createdAt: number; delivery: HookDelivery }>();
  readonly #task: RepeatingTask;

  constructor(options: HookDispatcherOptions) {
    this.#options = options;
    this.#task = new RepeatingTask(
      () => this.tick(),
      (error) => options.logger.warn({ err: error }, 'hook dispatcher could not read the hooks'),
      undefined,
      options.ready,
    );
  }

  start(): void {
    this.#task.start();
  }

  /** Stops every delivery (a batch in flight gets a bound to finish; unacknowledged, it stays in its outbox) and gives the leases back. */
  async stop(): Promise<void> {
    const bound = this.#options.stopBoundMs ?? DEFAULT_STOP_BOUND_MS;
    await this.#task.stop(bound);
    await Promise.all([...this.#running.keys()].map((name) => this.#end(name, bound)));
  }

  /** The hooks this replica delivers now. */
  delivering(): string[] {
    return [...this.#running.keys()];
  }

  /** Starts, renews and stops deliveries to match the hooks and the leases; answers when to look again (ms). */
  async tick(): Promise<number> {
    const { leases, logger } = this.#options;
    const hooks = await this.#options.hooks();
    const present = new Map(hooks.map((hook) => [hook.definition.name, hook]));
    for (const [name, running] of this.#running) {
      if (present.get(name)?.definition.createdAt !== running.createdAt) this.#drop(name);
    }
    for (const { definition, secret } of hooks) {
      if (this.#task.stopped) break;
      const held = await leases.take(definition.name, this.#token, this.#options.leaseMs ?? DEFAULT_LEASE_MS);
      const running = this.#running.get(definition.name);
      if (held && running === undefined) {
        const delivery = this.#delivery(definition, secret);
        this.#running.set(definition.name, { createdAt: definition.createdAt, delivery });
        delivery.start();
        logger.info({ hook: definition.name }, 'delivering hook');
      } else if (!held && running !== undefined) {
        this.#drop(definition.name);
      }
    }
    return this.#options.tickMs ?? DEFAULT_TICK_MS;
  }

  #delivery(definition: HookDefinition, secret: Secret): HookDelivery {
    const { logger, retryMs, post } = this.#options;
    return new HookDelivery({
      name: definition.name,
      url: definition.url,
      secret,
      outbox: this.#options.outboxOf(definition.name),
      retryMs,
      logger,
      ...(post === undefined ? {} : { post }),
      ...(this.#options.ready === undefined ? {} : { ready: this.#options.ready }),
    });
  }

  /**
   * Stops a delivery whose hook was removed (its lease went with it) or whose lease another
   * replica took: in the background, so a batch in flight (up to the 10 s timeout) never holds
   * up the renewal of the other hooks' leases.
   */
  #drop(name: string): void {
    const running = this.#running.get(name);
    if (running === undefined) return;
    this.#running.delete(name);
    void running.delivery.stop();
  }

  async #end(name: string, boundMs: number): Promise<void> {
    const running = this.#running.get(name);
    if (running === undefined) return;
    this.#running.delete(name);
    await running.delivery.stop(boundMs);
    await this.#options.leases.release(name, this.#token).catch(() => undefined);
  }
}
