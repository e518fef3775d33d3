import type { OptOutSource } from '../../campaigns/ledger.js';
import { AppError } from '../../errors/app-error.js';
import { phoneRefusalCode, toE164 } from '../../phone/e164.js';
import type { AppContext } from '../../app/app-context.js';
import { changeOptOut, optOutsTarget, type OptOutList, type OptOutsOptions, type OptOutsTarget } from '../../app/opt-outs.js';

/** `campaign optouts add | remove | list`: the opt-outs of src/app/opt-outs.ts, in the operator's words. */
type OptOutsContext = Pick<AppContext, 'config' | 'ledger'>;

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

/** One line per opt-out: phone, when, and how it was learnt. */
export function optOutsText(list: OptOutList): string {
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

function e164Of(raw: string): string {
  const phone = toE164(raw);
  if (!phone.ok) throw new AppError(phoneRefusalCode(raw), `${phone.reason}, e.g. +4915112345678`);
  return phone.e164;
}
