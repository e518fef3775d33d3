import { AppError } from '../../errors/app-error.js';

/** What a cost limit looks like, for every refusal of one (the API's schema says it too). */
export const AMOUNT_FORM = "give an amount in the rate card's currency, e.g. 250 or 99.50";

/** `--max-cost 99.50`: the amount a command line gives as text, digits with an optional decimal part. */
export function parseMaxCost(name: string, text: string): number {
  if (!/^\d+(\.\d+)?$/.test(text.trim())) throw new AppError('OPTION_INVALID', `${name} "${text.slice(0, 40)}": ${AMOUNT_FORM}`);
  return Number(text.trim());
}

/** A spec's cost limit: an amount of 0 or more (a JSON caller's schema refuses the rest before; a direct caller's spec is held here). */
export function checkMaxCost(amount: number | undefined, name: string): number | undefined {
  if (amount !== undefined && !(Number.isFinite(amount) && amount >= 0))
    throw new AppError('OPTION_INVALID', `${name} ${String(amount)}: ${AMOUNT_FORM}`);
  return amount;
}
