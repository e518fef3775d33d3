import type { OptOutSource } from '../../campaigns/ledger.js';
import { AppError } from '../../errors/app-error.js';
import { phoneRefusalCode, toE164 } from '../../phone/e164.js';
import { portfolioNameText, portfolioOf } from '../../portfolios/portfolios.js';
import type { AppContext } from '../../app/app-context.js';

/**
 * `campaign optouts list|add|remove`: the recipients a business portfolio's MARKETING and text
 * campaigns skip (OPTED_OUT), on every number of the portfolio. Named by `--portfolio`, or
 * through one of its numbers (`--phone-number-id`, default WHATSAPP_PHONE_NUMBER_ID).
 */
export interface OptOutsOptions {
  phoneNumberId?: string | undefined;
  portfolio?: string | undefined;
}

/** What the opt-out commands work with (the API's context has no close()). */
type OptOutsContext = Pick<AppContext, 'config' | 'ledger'>;

/** Which opt-outs: the portfolio's, and the number it was named through (if it was). */
export interface OptOutsTarget {
  portfolio: string;
  phoneNumberId?: string;
}

export async function listOptOuts(
  context: OptOutsContext,
  options: OptOutsOptions,
  names = FLAGS,
): Promise<OptOutsTarget & { optOuts: { phone: string; source: OptOutSource }[] }> {
  const target = optOutsTarget(context, options, names);
  const found =
    target.phoneNumberId === undefined
      ? await context.ledger.optOutsOfPortfolio(target.portfolio)
      : await context.ledger.optOuts(target.phoneNumberId);
  const optOuts = [...found].map(([phone, source]) => ({ phone, source })).sort((a, b) => a.source.at - b.source.at);
  return { ...target, optOuts };
}

export async function addOptOut(context: OptOutsContext, raw: string, options: OptOutsOptions): Promise<string> {
  const target = optOutsTarget(context, options);
  const phone = e164Of(raw);
  return (await changeOptOut(context, target, phone, 'add'))
    ? `${phone} is opted out of marketing on ${where(target)}: MARKETING campaigns of every number of it skip it (OPTED_OUT), ` +
        'rows already waiting included'
    : `${phone} was already opted out on ${where(target)} (kept as it was)`;
}

export async function removeOptOut(context: OptOutsContext, raw: string, options: OptOutsOptions): Promise<string> {
  const target = optOutsTarget(context, options);
  const phone = e164Of(raw);
  return (await changeOptOut(context, target, phone, 'remove'))
    ? `${phone} is no longer opted out on ${where(target)}`
    : `${phone} was not opted out on ${where(target)}: nothing changed`;
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

/** One opt-out as `campaign optouts list --json` prints it. */
export function optOutJson(optOut: { phone: string; source: OptOutSource }): {
  phone: string;
  at: string;
  via: string;
  campaignId: string | null;
  row: number | null;
} {
  const { phone, source } = optOut;
  return {
    phone,
    at: new Date(source.at).toISOString(),
    via: source.via ?? '131050',
    campaignId: source.campaignId || null,
    row: source.row || null,
  };
}

/** One line per opt-out: phone, when, and how it was learnt. */
export function optOutsText(list: Awaited<ReturnType<typeof listOptOuts>>): string {
  if (list.optOuts.length === 0) return `No opt-outs on ${where(list)}.`;
  const how = (s: OptOutSource) =>
    s.via === 'keyword'
      ? 'opt-out keyword'
      : s.via === 'user_preferences'
        ? 'stopped marketing in WhatsApp'
        : s.via === 'operator'
          ? 'campaign optouts add'
          : `Meta 131050 (campaign ${s.campaignId} row ${s.row})`;
  return [
    `${list.optOuts.length} opted out on ${where(list)}:`,
    ...list.optOuts.map((o) => `  ${o.phone}  ${o.source.at === 0 ? '?' : new Date(o.source.at).toISOString()}  ${how(o.source)}`),
  ].join('\n');
}

function where(target: OptOutsTarget): string {
  return `portfolio ${target.portfolio}${target.phoneNumberId === undefined ? '' : ` (of ${target.phoneNumberId})`}`;
}

/** How the two options are named to the caller (the CLI's flags; the API's fields). */
export interface OptOutsNames {
  portfolio: string;
  phoneNumberId: string;
}

const FLAGS: OptOutsNames = { portfolio: '--portfolio', phoneNumberId: '--phone-number-id' };

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

function e164Of(raw: string): string {
  const phone = toE164(raw);
  if (!phone.ok) throw new AppError(phoneRefusalCode(raw), `${phone.reason}, e.g. +4915112345678`);
  return phone.e164;
}
