import type { Config } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import type { LedgerOptions } from '../redis/ledger/redis-ledger.js';
import { replicasBehindWarning } from './replicas-behind-warning.js';

/**
 * The ledger's settings from config, the same for every command and the service. `logger` may
 * be given as the function that makes it, so a command that never warns never makes one.
 */
export function ledgerOptionsOf(config: Config, logger: Logger | (() => Logger)): LedgerOptions {
  return {
    autoPause: config.autoPause,
    duplicateWindowMs: config.duplicateWindowMs,
    confirmWindowMs: config.confirmWindowMs,
    heldPatienceMs: config.heldPatienceMs,
    waitReplicas: config.redisWaitReplicas,
    portfolios: config.portfolios,
    onReplicasBehind: replicasBehindWarning(
      logger,
      "REDIS_WAIT_REPLICAS: fewer replicas than asked have this number's claims (none connected, or not within 1 s); " +
        'sending goes on, and a failover now could lose a claim',
    ),
  };
}
