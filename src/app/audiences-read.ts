import type { AudienceContact, AudienceDetail, AudienceSummary } from '../audiences/audience.js';
import { audienceNotFound, checkAudienceName } from '../audiences/audience-name.js';
import type { WhereFilter } from '../audiences/where/where-filter.js';
import { namedAttributes } from '../audiences/attribute-packing.js';
import { PhoneRowIndex } from '../campaigns/ingest/phone-row-index.js';
import type { RedisAudiences, StoredAudience } from '../redis/audiences/redis-audiences.js';
import { audienceTarget, audienceStore, consentStore, type AudiencesContext } from './audiences-context.js';
import type { OptOutsOptions } from './opt-outs.js';

/** Contacts per page read from Redis. */
const PAGE = 1000;

/** The portfolio's audiences, by name. */
export async function listAudiences(context: AudiencesContext, target: OptOutsOptions): Promise<AudienceSummary[]> {
  const { portfolio } = audienceTarget(context, target);
  return (await audienceStore(context).list(portfolio)).map((stored) => summaryOf(stored, stored.contacts));
}

/** An audience as listed: what is stored of it, and how many contacts it has. */
function summaryOf(stored: StoredAudience, contacts: number): AudienceSummary {
  const { name, columns, createdAt, updatedAt, importedFrom, lastImport } = stored;
  return { name, contacts, columns, createdAt, updatedAt, importedFrom, lastImport };
}

/** The audience's columns (what `--where` may name), or AUDIENCE_NOT_FOUND. */
export async function audienceColumns(context: AudiencesContext, target: OptOutsOptions, name: string): Promise<string[]> {
  return (await openAudience(context, target, name)).audience.columns;
}

/**
 * The audience's contacts, a page at a time from Redis (never the whole hash at once), each
 * once, those `where` matches only. AUDIENCE_NOT_FOUND before the first.
 */
export async function* audienceContacts(
  context: AudiencesContext,
  target: OptOutsOptions,
  name: string,
  where?: WhereFilter,
): AsyncIterable<AudienceContact> {
  const { store, portfolio, audience } = await openAudience(context, target, name);
  for await (const page of contactPages(store, portfolio, audience)) {
    for (const contact of page) if (where === undefined || where.matches(contact.attributes)) yield contact;
  }
}

/** The audience with what its contacts hold: per column how many fill it, and how many are opted out, consented, known by user ID. */
export async function showAudience(context: AudiencesContext, target: OptOutsOptions, name: string): Promise<AudienceDetail> {
  const { store, portfolio, audience } = await openAudience(context, target, name);
  const optOuts = await context.ledger.optOutsOfPortfolio(portfolio);
  const consent = consentStore(context);
  const filled: Record<string, number> = Object.fromEntries(audience.columns.map((column) => [column, 0]));
  let contacts = 0;
  let optedOut = 0;
  let withConsent = 0;
  let withUserId = 0;
  for await (const page of contactPages(store, portfolio, audience)) {
    const phones = page.map((c) => c.phone);
    const [consented, userIds] = await Promise.all([consent.consented(portfolio, phones), store.userIds(portfolio, phones)]);
    contacts += page.length;
    for (const contact of page) {
      if (optOuts.has(contact.phone)) optedOut++;
      for (const column of audience.columns) if (contact.attributes[column] !== '') filled[column] = (filled[column] ?? 0) + 1;
    }
    withConsent += consented.filter(Boolean).length;
    withUserId += userIds.filter((id) => id !== undefined).length;
  }
  const bytes = await store.bytes(portfolio, name);
  return { ...summaryOf(audience, contacts), portfolio, filled, optedOut, withConsent, withUserId, bytes };
}

/** The store, the portfolio and the audience `name` names there, or AUDIENCE_NOT_FOUND. */
export async function openAudience(
  context: AudiencesContext,
  target: OptOutsOptions,
  name: string,
): Promise<{ store: RedisAudiences; portfolio: string; audience: StoredAudience }> {
  checkAudienceName(name);
  const { portfolio } = audienceTarget(context, target);
  const store = audienceStore(context);
  const audience = await store.audience(portfolio, name);
  if (audience === undefined) throw audienceNotFound(name, portfolio);
  return { store, portfolio, audience };
}

/**
 * The audience's contacts page by page (HSCAN), each contact once: HSCAN may return one again
 * while Redis resizes the hash, and a send must not get it twice.
 */
export async function* contactPages(store: RedisAudiences, portfolio: string, audience: StoredAudience): AsyncIterable<AudienceContact[]> {
  const seen = new PhoneRowIndex(1 << 16);
  let cursor = '0';
  do {
    const page = await store.page(portfolio, audience.name, cursor, PAGE);
    cursor = page.cursor;
    const contacts: AudienceContact[] = [];
    for (const [phone, values] of page.contacts) {
      if (seen.get(phone) !== undefined) continue;
      seen.setIfAbsent(phone, 1);
      contacts.push({ phone, attributes: namedAttributes(values, audience.columns) });
    }
    if (contacts.length > 0) yield contacts;
  } while (cursor !== '0');
}
