import type { MessagingLimit } from '../config/number-settings.js';
import type { SendLedger } from '../campaigns/ledger.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/key-scope.js';
import type { LimitUpdate } from '../webhooks/limit-events.js';
import { numbersOfPortfolio } from '../redis/pacer/portfolio-keys.js';
import { DEFAULT_PORTFOLIO, portfolioOf, type PortfolioAssignments } from './portfolios.js';

export interface LimitWebhookOptions {
  redis: RedisClient;
  prefix: string;
  portfolios: PortfolioAssignments;
  /** MESSAGING_LIMITS: a portfolio it names keeps that limit, whatever Meta says. */
  fixed: ReadonlyMap<string, MessagingLimit>;
  ledger: Pick<SendLedger, 'recordMessagingLimit'>;
  /** Reads the limit from the API on a number (undefined: `serve` has no access token, only the webhooks' values count). */
  fetch: ((phoneNumberId: string) => Promise<MessagingLimit>) | undefined;
  logger: Logger;
}

/**
 * `serve`'s answer to the webhooks that change a portfolio's messaging limit: the new limit is
 * stored for the portfolio, where every feed of its numbers reads it at its next round. A
 * webhook names a WhatsApp Business Account, not a portfolio: its value is stored as it is
 * when the deployment has one portfolio (or the webhook names a number); otherwise, and for
 * `account_update`, each portfolio's limit is read again from the API on one of its numbers.
 */
export function limitWebhookHandler(options: LimitWebhookOptions): (updates: readonly LimitUpdate[]) => Promise<void> {
  const { portfolios, fixed, ledger, logger } = options;
  const all = [...new Set([DEFAULT_PORTFOLIO, ...portfolios.values()])].sort();
  return async (updates) => {
    const readAgain = new Set<string>();
    for (const update of updates) {
      const named = update.phoneNumberId === undefined ? undefined : portfolioOf(portfolios, update.phoneNumberId);
      const targets = named !== undefined ? [named] : all;
      const portfolio = update.limit === undefined ? undefined : (named ?? (await onlyPortfolio(options, all)));
      if (portfolio !== undefined && update.limit !== undefined) {
        if (fixed.has(portfolio)) continue;
        await ledger.recordMessagingLimit(portfolio, update.limit);
        logger.info(
          { portfolio, messagingLimit: update.limit, webhook: update.field },
          `messaging limit of portfolio ${portfolio}: ${update.limit} (${update.field} webhook)`,
        );
        continue;
      }
      for (const portfolio of targets) if (!fixed.has(portfolio)) readAgain.add(portfolio);
    }
    for (const portfolio of readAgain) await readFromApi(options, portfolio);
  };
}

/** The one portfolio with numbers the deployment has sent from (the default one when none has), or undefined when several have. */
async function onlyPortfolio(options: LimitWebhookOptions, all: readonly string[]): Promise<string | undefined> {
  const used: string[] = [];
  for (const portfolio of all) {
    if ((await numbersOfPortfolio(options.redis, options.prefix, options.portfolios, portfolio)).length > 0) used.push(portfolio);
  }
  if (used.length === 0) return DEFAULT_PORTFOLIO;
  return used.length === 1 ? used[0] : undefined;
}

/** The portfolio's limit read on its first number and stored; a failure is logged (the 15-minute read tries again). */
async function readFromApi(options: LimitWebhookOptions, portfolio: string): Promise<void> {
  const { fetch, logger } = options;
  const [number] = await numbersOfPortfolio(options.redis, options.prefix, options.portfolios, portfolio);
  if (fetch === undefined || number === undefined) return;
  try {
    const limit = await fetch(number);
    await options.ledger.recordMessagingLimit(portfolio, limit);
    logger.info({ portfolio, messagingLimit: limit }, `messaging limit of portfolio ${portfolio}: ${limit} (read after a webhook)`);
  } catch (error) {
    logger.warn({ err: error, portfolio }, `could not read the messaging limit of portfolio ${portfolio} after a webhook`);
  }
}
