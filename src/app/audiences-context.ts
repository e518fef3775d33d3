import { RedisAudiences } from '../redis/audiences/redis-audiences.js';
import { RedisConsent } from '../redis/consent/redis-consent.js';
import type { ConsentStore } from '../consent/consent-entry.js';
import { AppError } from '../errors/app-error.js';
import type { AppContext } from './app-context.js';
import { optOutsTarget, type OptOutsOptions, type OptOutsTarget } from './opt-outs.js';

/** What the audience use cases work with (the API's context has no close()). */
export type AudiencesContext = Pick<AppContext, 'config' | 'ledger' | 'redis'>;

export function audienceStore(context: AudiencesContext): RedisAudiences {
  return new RedisAudiences(context.redis, context.config.queuePrefix);
}

export function consentStore(context: AudiencesContext): ConsentStore {
  return new RedisConsent(context.redis, context.config.queuePrefix);
}

/** The portfolio the options name, as the opt-outs find it (`--portfolio`, or a number of it; default WHATSAPP_PHONE_NUMBER_ID's). */
export function audienceTarget(context: Pick<AppContext, 'config'>, options: OptOutsOptions): OptOutsTarget {
  if (options.portfolio === undefined && options.phoneNumberId === undefined && context.config.phoneNumberId === undefined)
    throw new AppError(
      'CONFIG_INVALID',
      "Which portfolio's audiences? Set WHATSAPP_PHONE_NUMBER_ID or give --phone-number-id or --portfolio",
    );
  return optOutsTarget(context, options);
}
