import { isRedisOutOfMemory } from '../../errors/redis-errors.js';
import type { Logger } from '../../logging/logger.js';

/** How often a write Redis refused for memory is tried again. */
const RETRY_MS = 1000;
/** One warning per this long while Redis stays full. */
const WARN_EVERY_MS = 30_000;

/**
 * Runs a ledger write, and while Redis refuses it for lack of memory (maxmemory reached), waits
 * and runs it again: a claim that could not be recorded sends nothing, and the answer of a send
 * that left must be recorded once there is room, or its row would be sent again. The ledger's
 * scripts are refused whole before they start, so running one again is safe. Gives up only
 * when `stopping` says the worker is shutting down (the error then goes on as it came).
 */
export class RedisRoom {
  #warnedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly logger: Logger,
    private readonly stopping: () => boolean,
  ) {}

  async write<T>(what: string, run: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await run();
      } catch (error) {
        if (!isRedisOutOfMemory(error) || this.stopping()) throw error;
        if (Date.now() - this.#warnedAt >= WARN_EVERY_MS) {
          this.#warnedAt = Date.now();
          this.logger.warn(
            { what },
            'Redis is out of memory (maxmemory reached): no row is claimed or answered until it has room; ' +
              'free memory (`campaign purge`, RETENTION_DAYS) or raise maxmemory',
          );
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }
}
