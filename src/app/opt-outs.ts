import { AppError } from '../errors/app-error.js';
import { portfolioNameText, portfolioOf } from '../portfolios/portfolios.js';
import type { AppContext } from './app-context.js';
import type { OptOut } from './views/opt-out-view.js';

/**
 * A business portfolio's opt-outs: the recipients its MARKETING and text campaigns skip
 * (OPTED_OUT), on every number of the portfolio. Named by portfolio, or through one of its
 * numbers (default WHATSAPP_PHONE_NUMBER_ID).
 */
export interface OptOutsOptions {
  phoneNumberId?: string | undefined;
  portfolio?: string | undefined;
}

/** What the opt-outs are read and changed with (the API's context has no close()). */
type OptOutsContext = Pick<AppContext, 'config' | 'ledger'>;

/** Which opt-outs: the portfolio's, and the number it was named through (if it was). */
export interface OptOutsTarget {
  portfolio: string;
  phoneNumberId?: string;
}

/** The target's opt-outs, oldest first. */
export type OptOutList = OptOutsTarget & { optOuts: OptOut[] };

/** How the two options are named to the caller in a refusal (the CLI's flags; the API's fields). */
export interface OptOutsNames {
  portfolio: string;
  phoneNumberId: string;
}

const FLAGS: OptOutsNames = { portfolio: '--portfolio', phoneNumberId: '--phone-number-id' };

export async function listOptOuts(context: OptOutsContext, options: OptOutsOptions, names = FLAGS): Promise<OptOutList> {
  const target = optOutsTarget(context, options, names);
  const found =
    target.phoneNumberId === undefined
      ? await context.ledger.optOutsOfPortfolio(target.portfolio)
      : await context.ledger.optOuts(target.phoneNumberId);
  const optOuts = [...found].map(([phone, source]) => ({ phone, source })).sort((a, b) => a.source.at - b.source.at);
  return { ...target, optOuts };
}

/**
 * Opts `phone` (E.164) out on the target's portfolio, or lifts its opt-out: whether that
 * changed anything (false: it already was, or was not, opted out).
 */
export async function changeOptOut(
  context: OptOutsContext,
  target: OptOutsTarget,
  phone: string,
  change: 'add' | 'remove',
): Promise<boolean> {
  const { ledger } = context;
  if (change === 'add')
    return target.phoneNumberId === undefined
      ? ledger.addPortfolioOptOut(target.portfolio, phone)
      : ledger.addOptOut(target.phoneNumberId, phone);
  return target.phoneNumberId === undefined
    ? ledger.removePortfolioOptOut(target.portfolio, phone)
    : ledger.removeOptOut(target.phoneNumberId, phone);
}

/** The portfolio `options` name (directly, or through a number; default WHATSAPP_PHONE_NUMBER_ID's). */
export function optOutsTarget(context: Pick<AppContext, 'config'>, options: OptOutsOptions, names = FLAGS): OptOutsTarget {
  const named = options.portfolio;
  if (named !== undefined && portfolioNameText(named) === undefined)
    throw new AppError(
      'OPTION_INVALID',
      `${names.portfolio} "${named}": a portfolio's name as PORTFOLIOS writes it (a letter, then letters, digits, _ or -)`,
    );
  const phoneNumberId = options.phoneNumberId ?? (named === undefined ? context.config.phoneNumberId : undefined);
  if (phoneNumberId === undefined) {
    if (named !== undefined) return { portfolio: named };
    throw new AppError(
      'CONFIG_INVALID',
      `Which opt-outs? Set WHATSAPP_PHONE_NUMBER_ID or give ${names.phoneNumberId} or ${names.portfolio}`,
    );
  }
  if (!/^\d+$/.test(phoneNumberId))
    throw new AppError(
      'OPTION_INVALID',
      `${names.phoneNumberId} "${phoneNumberId}": give the numeric phone-number ID from WhatsApp Manager`,
    );
  const portfolio = portfolioOf(context.config.portfolios, phoneNumberId);
  if (named !== undefined && named !== portfolio)
    throw new AppError('OPTION_INVALID', `${names.phoneNumberId} ${phoneNumberId} is in portfolio ${portfolio} (PORTFOLIOS), not ${named}`);
  return { portfolio, phoneNumberId };
}
