import { safeJson } from '../../cloud-api/safe-json.js';
import type { ConsentEntry } from '../../consent/consent-entry.js';
import type { RedisClient } from '../key-scope.js';
import type { OptOutEvent } from '../ledger/opt-out-event.js';
import { RedisConsent } from './redis-consent.js';

/** What recording needs of the ledger: its connection, prefix and clock (for an event that carries no time). */
export interface OptOutConsentContext {
  redis: RedisClient;
  prefix: string;
  clock: { now(): Promise<number> };
}

const E164_DIGITS = /^\+?\d{1,15}$/;

/** The opt-out source JSON the ledger keeps (OptOutSource), as far as it can be read. */
interface StoredSource {
  campaignId?: unknown;
  row?: unknown;
  at?: unknown;
  via?: unknown;
}

/**
 * Each opt-out or lift of a portfolio (spreadOptOuts) as an entry of the person's consent
 * history, whether or not it changed the opt-outs: the history is what happened. A stop or
 * an opt-out is an opt-out; a resume (or an In-App Signup, which the webhook reads as a
 * resume) and an operator's lift are opt-ins.
 */
export async function recordOptOutConsent(context: OptOutConsentContext, portfolio: string, events: readonly OptOutEvent[]): Promise<void> {
  if (events.length === 0) return;
  let now: number | undefined;
  const entries: ConsentEntry[] = [];
  for (const event of events) {
    const source = sourceOf(event.source);
    const known = event.at > 0 ? event.at : typeof source.at === 'number' && source.at > 0 ? Math.round(source.at) : undefined;
    const at = known ?? (now ??= await context.clock.now());
    const kind = event.action === 'stop' || event.action === 'add' ? 'opt-out' : 'opt-in';
    // An opt-out the store cannot hold (a phone not in E.164) is still applied; its history is what is skipped.
    if (E164_DIGITS.test(event.phone)) entries.push({ phone: event.phone, kind, at, source: optOutSourceWords(event.action, source) });
  }
  await new RedisConsent(context.redis, context.prefix).record(portfolio, entries);
}

/** How an opt-out or lift was given, in an auditor's words. */
export function optOutSourceWords(action: OptOutEvent['action'], source: StoredSource): string {
  if (action === 'stop') return 'user_preferences stop';
  if (action === 'resume') return 'user_preferences resume';
  if (action === 'remove') return 'operator: campaign optouts remove';
  if (source.via === 'keyword') return 'opt-out keyword';
  if (source.via === 'operator') return 'operator: campaign optouts add';
  if (source.via === 'user_preferences') return 'user_preferences stop';
  if (typeof source.campaignId === 'string' && source.campaignId !== '' && source.campaignId !== '?') {
    return `Meta 131050 (campaign ${source.campaignId} row ${typeof source.row === 'number' ? source.row : '?'})`;
  }
  return 'opt-out (its source could not be read)';
}

function sourceOf(json: string | undefined): StoredSource {
  const parsed = json === undefined || json === '' ? undefined : safeJson(json);
  return typeof parsed === 'object' && parsed !== null ? parsed : {};
}
