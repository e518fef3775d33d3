import type { OptOutSource } from '../../campaigns/ledger.js';
import { AppError } from '../../errors/app-error.js';
import { toE164 } from '../../phone/e164.js';
import type { AppContext } from '../../app/app-context.js';

/** `campaign optouts list|add|remove`: the recipients a number's MARKETING campaigns skip (OPTED_OUT). */
export interface OptOutsOptions {
  phoneNumberId?: string | undefined;
}

export async function listOptOuts(
  context: AppContext,
  options: OptOutsOptions,
): Promise<{ phoneNumberId: string; optOuts: { phone: string; source: OptOutSource }[] }> {
  const phoneNumberId = numberOf(context, options);
  const found = await context.ledger.optOuts(phoneNumberId);
  const optOuts = [...found].map(([phone, source]) => ({ phone, source })).sort((a, b) => a.source.at - b.source.at);
  return { phoneNumberId, optOuts };
}

export async function addOptOut(context: AppContext, raw: string, options: OptOutsOptions): Promise<string> {
  const phoneNumberId = numberOf(context, options);
  const phone = e164Of(raw);
  const added = await context.ledger.addOptOut(phoneNumberId, phone);
  return added
    ? `${phone} is opted out of marketing on ${phoneNumberId}: MARKETING campaigns skip it (OPTED_OUT) from the next send on`
    : `${phone} was already opted out on ${phoneNumberId} (kept as it was)`;
}

export async function removeOptOut(context: AppContext, raw: string, options: OptOutsOptions): Promise<string> {
  const phoneNumberId = numberOf(context, options);
  const phone = e164Of(raw);
  const removed = await context.ledger.removeOptOut(phoneNumberId, phone);
  return removed
    ? `${phone} is no longer opted out on ${phoneNumberId}`
    : `${phone} was not opted out on ${phoneNumberId}: nothing changed`;
}

/** One line per opt-out: phone, when, and how it was learnt. */
export function optOutsText(list: Awaited<ReturnType<typeof listOptOuts>>): string {
  if (list.optOuts.length === 0) return `No opt-outs on ${list.phoneNumberId}.`;
  const how = (s: OptOutSource) =>
    s.via === 'keyword'
      ? 'opt-out keyword'
      : s.via === 'user_preferences'
        ? 'stopped marketing in WhatsApp'
        : s.via === 'operator'
          ? 'campaign optouts add'
          : `Meta 131050 (campaign ${s.campaignId} row ${s.row})`;
  return [
    `${list.optOuts.length} opted out on ${list.phoneNumberId}:`,
    ...list.optOuts.map((o) => `  ${o.phone}  ${o.source.at === 0 ? '?' : new Date(o.source.at).toISOString()}  ${how(o.source)}`),
  ].join('\n');
}

function numberOf(context: AppContext, options: OptOutsOptions): string {
  const phoneNumberId = options.phoneNumberId ?? context.config.phoneNumberId;
  if (phoneNumberId === undefined)
    throw new AppError('CONFIG_INVALID', 'Which number? Set WHATSAPP_PHONE_NUMBER_ID or pass --phone-number-id');
  if (!/^\d+$/.test(phoneNumberId))
    throw new AppError('OPTION_INVALID', `--phone-number-id "${phoneNumberId}": give the numeric phone-number ID from WhatsApp Manager`);
  return phoneNumberId;
}

function e164Of(raw: string): string {
  const phone = toE164(raw);
  if (!phone.ok) throw new AppError('OPTION_INVALID', `${phone.reason}, e.g. +4915112345678`);
  return phone.e164;
}
