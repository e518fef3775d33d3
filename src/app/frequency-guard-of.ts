import { RedisFrequencyGuard } from '../redis/frequency/redis-frequency-guard.js';
import type { AppContext } from './app-context.js';

/** FREQUENCY_CAPS on this context's Redis and ledger clock (the worker's claims, the plan's estimate); undefined without caps. */
export function frequencyGuardOf(context: Pick<AppContext, 'config' | 'redis' | 'ledger'>): RedisFrequencyGuard | undefined {
  const { config, redis, ledger } = context;
  if (config.frequencyCaps.length === 0) return undefined;
  const { queuePrefix: prefix, portfolios, frequencyCaps: caps } = config;
  return new RedisFrequencyGuard(redis, { prefix, portfolios, caps, clock: ledger.ledgerClock() });
}
