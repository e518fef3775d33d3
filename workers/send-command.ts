import { basename } from 'node:path';
import { CAMPAIGN_ID_PATTERN, newCampaignId } from '../src/campaigns/campaign-id.js';
import { campaignTemplate } from '../src/campaigns/campaign-template.js';
import type { CampaignDefinition } from '../src/campaigns/campaign.js';
import { produceCampaign, type ProduceSummary } from '../src/campaigns/producer.js';
import { AppError } from '../src/errors/app-error.js';
import { BullSendQueue } from '../src/queue/send-queue.js';
import { loadTemplatesFile } from '../src/templates/templates-file.js';
import { requirementsOf } from '../src/templates/template-requirements.js';
import type { AppContext } from './app-context.js';

export interface SendOptions {
  file: string;
  template: string;
  language: string;
  params: string[];
  phoneColumn: string;
  headerImageColumn?: string | undefined;
  phoneNumberId?: string | undefined;
  campaignId?: string | undefined;
  templatesFile?: string | undefined;
  delimiter?: string | undefined;
  onProgress?: (rowsRead: number) => void;
}

/** `campaign send`: reads the CSV into a campaign and its jobs; no worker needed. */
export async function runSend(context: AppContext, options: SendOptions): Promise<ProduceSummary> {
  const { config, ledger, redis, logger } = context;
  const phoneNumberId = options.phoneNumberId ?? config.phoneNumberId;
  if (phoneNumberId === undefined) {
    throw new AppError('CONFIG_INVALID', 'No phone number to send from: set WHATSAPP_PHONE_NUMBER_ID or pass --phone-number-id');
  }
  if (options.campaignId !== undefined && !CAMPAIGN_ID_PATTERN.test(options.campaignId)) {
    throw new AppError(
      'OPTION_INVALID',
      `--campaign "${options.campaignId}": a campaign ID starts with a letter and has only letters, digits, _ and - (at most 64)`,
    );
  }
  let requirements;
  if (options.templatesFile !== undefined) {
    const templates = await loadTemplatesFile(options.templatesFile);
    const found = templates.find((t) => t.name === options.template && t.language === options.language);
    if (found === undefined) {
      throw new AppError(
        'TEMPLATE_MAPPING_INVALID',
        `Template ${options.template} (${options.language}) is not in ${options.templatesFile}; nothing was enqueued.`,
      );
    }
    requirements = requirementsOf(found);
  }
  const definition: CampaignDefinition = {
    id: options.campaignId ?? newCampaignId(),
    createdAt: Date.now(),
    phoneNumberId,
    template: campaignTemplate(options.template, options.language, requirements, {
      paramColumns: options.params,
      headerImageColumn: options.headerImageColumn,
    }),
    source: {
      file: basename(options.file),
      phoneColumn: options.phoneColumn,
      paramColumns: options.params,
      ...(options.headerImageColumn === undefined ? {} : { headerImageColumn: options.headerImageColumn }),
    },
  };
  const queue = new BullSendQueue({
    connection: redis,
    prefix: config.queuePrefix,
    phoneNumberId,
    attempts: config.send.attempts,
    backoffMs: config.send.backoffMs,
    logger,
  });
  try {
    return await produceCampaign(
      { ledger, queue },
      { file: options.file, definition, delimiter: options.delimiter, ...(options.onProgress ? { onProgress: options.onProgress } : {}) },
    );
  } finally {
    await queue.close();
  }
}
