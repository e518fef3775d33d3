import { RedisConsent } from '../redis/consent/redis-consent.js';
import { frequencyGuardOf } from './frequency-guard-of.js';
import { portfolioOf } from '../portfolios/portfolios.js';
import type { SendCampaignDeps } from './send-campaign.js';
import { writeAudienceFile } from './audience-file.js';
import { setTemplateTtl } from '../cloud-api/template-ttl-client.js';
import { messagingLimitOf, sendRateOf } from '../config/config.js';
import { loadRateCard } from '../pricing/rate-card.js';
import { readMessagingReach } from '../redis/ledger/messaging-reach-read.js';
import type { AppContext } from './app-context.js';
import { openCampaignMedia } from './campaign-media-deps.js';
import { buildTemplateRegistry } from './templates.js';
import { RedisClickLinks } from '../redis/clicks/redis-click-links.js';

/** What a process needs to create campaigns: the CLI's command opens one for its run, the API's service keeps one. */
export type CampaignContext = Omit<AppContext, 'close'>;

/** What createCampaign needs, from this process's configuration, Redis and ledger. */
export function createCampaignDeps(context: CampaignContext): SendCampaignDeps {
  const { config, ledger, redis } = context;
  const { accessToken } = config;
  // Made once: the ingest asks them once per chunk of rows.
  const consent = new RedisConsent(redis, config.queuePrefix);
  const frequency = frequencyGuardOf(context);
  return {
    ledger,
    reportsDir: config.reportsDir,
    defaultPhoneNumberId: config.phoneNumberId,
    sendRate: (phoneNumberId) => sendRateOf(config.send, phoneNumberId),
    writeAudienceFile: (request) => writeAudienceFile(context, request),
    consented: (phoneNumberId, phones) => consent.consented(portfolioOf(config.portfolios, phoneNumberId), phones),
    frequencyCapped: frequency === undefined ? undefined : (definition, phones) => frequency.capped(definition, phones),
    openTemplates: (file) => buildTemplateRegistry(context, { file }),
    setTemplateTtl:
      accessToken === undefined
        ? undefined
        : (templateId, seconds) =>
            setTemplateTtl({
              baseUrl: config.api.baseUrl,
              apiVersion: config.api.version,
              timeoutMs: config.api.timeoutMs,
              accessToken,
              templateId,
              seconds,
            }),
    publicUrl: config.publicUrl,
    clickLinks: new RedisClickLinks(redis, config.queuePrefix),
    rateCard: loadRateCard(config.rateCardFile),
    recordCostEstimate: (campaignId, cost) => ledger.recordCostEstimate(campaignId, cost),
    openMedia: (phoneNumberIds) => openCampaignMedia(config, redis, phoneNumberIds),
    // MESSAGING_LIMITS wins over what a worker or webhook last stored for the portfolio.
    messagingReach: async (phoneNumberId, campaignId) => {
      const read = await readMessagingReach(redis, config.queuePrefix, config.portfolios, phoneNumberId, campaignId);
      return {
        portfolio: read.portfolio,
        limit: messagingLimitOf(config, phoneNumberId) ?? read.storedLimit,
        reached: read.reached,
        queuedElsewhere: read.queuedElsewhere,
        oldestReachedAt: read.oldestReachedAt,
        now: read.now,
      };
    },
  };
}
