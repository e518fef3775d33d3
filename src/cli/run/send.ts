import { basename } from 'node:path';
import { createCampaign, type CreateCampaignDeps, type CreateNotices } from '../../campaigns/create-campaign.js';
import type { SendOutcome } from '../../campaigns/ingest/producer.js';
import { CLI_FIELD_NAMES } from '../../campaigns/spec/field-names.js';
import { parseCampaignSpec } from '../../campaigns/spec/parse-spec.js';
import { sendSpecOf, type SendSpecOptions } from '../send-spec.js';
import { messagingLimitOf, sendRateOf } from '../../config/config.js';
import { setTemplateTtl } from '../../cloud-api/template-ttl-client.js';
import { readMessagingReach } from '../../redis/ledger/messaging-reach-read.js';
import type { AppContext } from '../../app/app-context.js';
import { buildTemplateRegistry } from './templates.js';
import { AppError } from '../../errors/app-error.js';
import { loadRateCard } from '../../pricing/rate-card.js';
import { recordCliAction } from './cli-history.js';

export interface SendOptions extends SendSpecOptions, CreateNotices {
  file: string;
  /** `--templates FILE`: approved templates from this Meta list instead of the registry's source. */
  templatesFile?: string | undefined;
  /** `--max-cost AMOUNT`: refuse the campaign when its estimate is above it. */
  maxCost?: string | undefined;
}

/**
 * `campaign send`: its options become a campaign spec, read once here at the edge, and
 * createCampaign does the rest (checks, template, plan, ingest); errors name the flags.
 */
export async function runSend(context: AppContext, options: SendOptions): Promise<SendOutcome> {
  const names = CLI_FIELD_NAMES;
  const spec = parseCampaignSpec(sendSpecOf(options), names);
  const templatesFile = options.templatesFile === undefined ? {} : { templatesFile: { path: options.templatesFile, name: '--templates' } };
  const maxCost = options.maxCost === undefined ? {} : { maxCost: { amount: maxCostOf(options.maxCost), name: '--max-cost' } };
  let continuing = false;
  const onStart: CreateNotices['onStart'] = (start) => {
    continuing = start.continuing;
    options.onStart?.(start);
  };
  const outcome = await createCampaign(
    campaignDeps(context),
    { spec, names, file: options.file, ...templatesFile, ...maxCost },
    { signal: options.signal, onStart, onProgress: options.onProgress },
  );
  if (!outcome.dryRun) await recordCliAction(context, outcome.id, continuing ? 'continue' : 'create', sendDetail(options.file, outcome));
  return outcome;
}

/** The history's word on a send: its file (by name: the path is the operator's machine's) and what it queued. */
function sendDetail(file: string, outcome: SendOutcome): string {
  const stopped = outcome.interruptedAtRow === undefined ? '' : `; reading stopped at row ${outcome.interruptedAtRow}`;
  return `${basename(file)}: ${outcome.queued} rows queued${stopped}`;
}

/** What createCampaign needs, from this process's configuration, Redis and ledger. */
export function campaignDeps(context: Omit<AppContext, 'close'>): CreateCampaignDeps {
  const { config, ledger, redis } = context;
  const { accessToken } = config;
  return {
    ledger,
    reportsDir: config.reportsDir,
    defaultPhoneNumberId: config.phoneNumberId,
    sendRate: (phoneNumberId) => sendRateOf(config.send, phoneNumberId),
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
    rateCard: loadRateCard(config.rateCardFile),
    recordCostEstimate: (campaignId, cost) => ledger.recordCostEstimate(campaignId, cost),
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

/** `--max-cost AMOUNT`: an amount in the rate card's currency, e.g. 250 or 99.50. */
export function maxCostOf(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value.trim())) {
    throw new AppError(
      'OPTION_INVALID',
      `--max-cost "${value.slice(0, 40)}": give an amount in the rate card's currency, e.g. 250 or 99.50`,
    );
  }
  return Number(value.trim());
}
