import type { Logger } from '../logging/logger.js';

/** How often at most the warning is logged: a replica that is down would otherwise log every write. */
const WARN_EVERY_MS = 60_000;

/**
 * REDIS_WAIT_REPLICAS' warning when fewer replicas than asked have a write: `message` says whose
 * writes, and what a failover now could lose. `logger` may be given as the function that makes it, so a command
 * that never warns never makes one.
 */
export function replicasBehindWarning(logger: Logger | (() => Logger), message: string): (acknowledged: number, wanted: number) => void {
  let lastWarning = Number.NEGATIVE_INFINITY;
  return (acknowledged, wanted) => {
    if (Date.now() - lastWarning < WARN_EVERY_MS) return;
    lastWarning = Date.now();
    (typeof logger === 'function' ? logger() : logger).warn({ acknowledged, wanted }, message);
  };
}
