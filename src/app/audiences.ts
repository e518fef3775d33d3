import { toE164 } from '../phone/e164.js';
import type { AppContext } from './app-context.js';
import { audienceTarget, audienceStore, type AudiencesContext } from './audiences-context.js';
import { openAudience } from './audiences-read.js';
import type { OptOutsOptions } from './opt-outs.js';
import { audienceNotFound, checkAudienceName } from '../audiences/audience-name.js';
import type { CountryCode } from 'libphonenumber-js';
import type { AudienceHistoryLine } from '../redis/audiences/redis-audiences.js';

/**
 * Audiences: contact lists of a business portfolio that outlive the file they came from
 * (src/audiences/audience.ts), kept in Redis in the portfolio's scope. Each use case names the
 * portfolio as the opt-outs do (`--portfolio`, or a number of it: `--phone-number-id`, default
 * WHATSAPP_PHONE_NUMBER_ID).
 */
export type { AudienceContact, AudienceDetail, AudienceImportOutcome, AudienceSummary } from '../audiences/audience.js';
export type { AudiencesContext } from './audiences-context.js';
export { importAudience, type AudienceImportRequest } from './audiences-import.js';
export { audienceColumns, audienceContacts, listAudiences, showAudience } from './audiences-read.js';
export { exportAudience } from './audiences-export.js';

/**
 * Removes contacts from the audience (each phone normalised as the import does; one that is
 * not a number, or not in the audience, is in `notFound` as given).
 */
export async function removeContacts(
  context: AudiencesContext,
  target: OptOutsOptions,
  name: string,
  phones: string[],
  defaultCountry?: CountryCode,
): Promise<{ removed: number; notFound: string[] }> {
  const { store, portfolio } = await openAudience(context, target, name);
  const normalised = phones.map((raw) => {
    const phone = toE164(raw, defaultCountry);
    return phone.ok ? phone.e164 : undefined;
  });
  const known = normalised.filter((phone): phone is string => phone !== undefined);
  const answers = await store.remove(portfolio, name, known);
  const removedPhones = new Set(known.filter((_, i) => answers[i] === true));
  const notFound = phones.filter((_, i) => {
    const phone = normalised[i];
    return phone === undefined || !removedPhones.has(phone);
  });
  return { removed: removedPhones.size, notFound };
}

/** Deletes the audience and its contacts: false when there was none of that name. */
export async function deleteAudience(context: AudiencesContext, target: OptOutsOptions, name: string): Promise<boolean> {
  return (await dropAudience(context, target, name, 'deleted')) !== undefined;
}

export interface AudiencePurge {
  name: string;
  portfolio: string;
  /** Contacts deleted. */
  contacts: number;
  purgedAt: number;
}

/**
 * `campaign purge --audience NAME`: deletes the audience's personal data (its contacts and
 * their attributes) and leaves a line in the portfolio's audience history saying so.
 */
export async function purgeAudience(
  context: AudiencesContext & Pick<AppContext, 'logger'>,
  target: OptOutsOptions,
  name: string,
): Promise<AudiencePurge> {
  const { portfolio } = audienceTarget(context, target);
  const dropped = await dropAudience(context, target, name, 'purged');
  if (dropped === undefined) {
    throw audienceNotFound(name, portfolio);
  }
  context.logger.info({ portfolio, audience: name, contacts: dropped.contacts }, 'purged audience');
  return { name, portfolio, contacts: dropped.contacts, purgedAt: dropped.at };
}

/**
 * AUDIENCE_RETENTION_DAYS: deletes every audience not imported into for that long, in every
 * portfolio, each with its history line. The names deleted, as `portfolio/name`.
 */
export async function expireAudiences(context: AudiencesContext & Pick<AppContext, 'logger'>, now = Date.now()): Promise<string[]> {
  const retention = context.config.audienceRetentionMs;
  if (retention === undefined || retention <= 0) return [];
  const store = audienceStore(context);
  const expired: string[] = [];
  for (const portfolio of await store.portfolios()) {
    for (const name of await store.importedBefore(portfolio, now - retention)) {
      const dropped = await dropAudience(context, { portfolio }, name, 'expired', now);
      if (dropped === undefined) continue;
      context.logger.info({ portfolio, audience: name, contacts: dropped.contacts }, 'deleted audience (retention)');
      expired.push(`${portfolio}/${name}`);
    }
  }
  return expired;
}

/** The portfolio's audience history (deleted, purged, expired), newest first. */
export async function audienceHistory(context: AudiencesContext, target: OptOutsOptions): Promise<AudienceHistoryLine[]> {
  return audienceStore(context).history(audienceTarget(context, target).portfolio);
}

async function dropAudience(
  context: AudiencesContext,
  target: OptOutsOptions,
  name: string,
  action: AudienceHistoryLine['action'],
  at = Date.now(),
): Promise<AudienceHistoryLine | undefined> {
  checkAudienceName(name);
  const { portfolio } = audienceTarget(context, target);
  return audienceStore(context).drop(portfolio, name, action, at);
}
