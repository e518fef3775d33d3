import type { AppContext } from '../app/app-context.js';

/**
 * What the API's routes work with: the same context a CLI command opens (config, logger,
 * Redis, ledger), so a route runs what the command of the same name runs.
 */
export interface ApiServices {
  context: Omit<AppContext, 'close'>;
  now: () => number;
}
