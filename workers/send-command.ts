import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { once } from 'node:events';
import { basename, join } from 'node:path';
import { stringify } from 'csv-stringify';
import { getCountries, type CountryCode } from 'libphonenumber-js';
import { CAMPAIGN_ID_PATTERN, newCampaignId } from '../src/campaigns/campaign-id.js';
import type { CampaignDefinition } from '../src/campaigns/campaign.js';
import { produceCampaign, type RefusedRow, type SendOutcome } from '../src/campaigns/producer.js';
import { planSend, type ColumnOptions } from '../src/campaigns/send-plan.js';
import { AppError } from '../src/errors/app-error.js';
import { BullSendQueue } from '../src/queue/send-queue.js';
import { requirementsOf, type TemplateRequirements } from '../src/templates/template-requirements.js';
import type { AppContext } from './app-context.js';
import { buildTemplateRegistry } from './templates-command.js';

export interface SendOptions extends ColumnOptions {
  file: string;
  template: string;
  language: string;
  phoneColumn: string;
  phoneNumberId?: string | undefined;
  campaignId?: string | undefined;
  templatesFile?: string | undefined;
  delimiter?: string | undefined;
  defaultCountry?: string | undefined;
  fixWhitespace?: boolean | undefined;
  dryRun?: boolean | undefined;
  onProgress?: (rowsRead: number) => void;
}

/**
 * `campaign send`: checks the mapping against the approved template, then reads the CSV into
 * a campaign and its jobs (no worker needed). `--dry-run` does every check and writes nothing
 * but the rejects file.
 */
export async function runSend(context: AppContext, options: SendOptions): Promise<SendOutcome> {
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
  const defaultCountry = checkCountry(options.defaultCountry);
  const requirements = await approvedTemplate(context, options);
  const id = options.campaignId ?? newCampaignId();
  const define = (header: readonly string[]): CampaignDefinition => ({
    id,
    createdAt: Date.now(),
    phoneNumberId,
    plan: planSend(requirements, header, options),
    source: {
      file: basename(options.file),
      phoneColumn: options.phoneColumn,
      fixWhitespace: options.fixWhitespace === true,
      ...(defaultCountry === undefined ? {} : { defaultCountry }),
    },
  });

  const rejects = new RejectsFile(join(config.reportsDir, `${id}${options.dryRun === true ? '.dry-run' : ''}.rejects.csv`));
  const queue = new BullSendQueue({
    connection: redis,
    prefix: config.queuePrefix,
    phoneNumberId,
    attempts: config.send.attempts,
    backoffMs: config.send.backoffMs,
    logger,
  });
  // Meta: on 131050 suppress the recipient for marketing (reference §8). Utility and
  // authentication templates still reach them.
  const optedOut = requirements.category === 'MARKETING' ? await ledger.optOuts(phoneNumberId) : undefined;
  try {
    const summary = await produceCampaign(
      { ledger, queue },
      {
        file: options.file,
        delimiter: options.delimiter,
        define,
        dryRun: options.dryRun === true,
        onRefused: (refused) => rejects.add(refused),
        ...(optedOut === undefined ? {} : { optedOut }),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      },
    );
    return { ...summary, dryRun: options.dryRun === true, rejectsFile: await rejects.close() };
  } finally {
    await rejects.close();
    await queue.close();
  }
}

/** The approved template for (name, language), or a refusal that says what exists instead. */
async function approvedTemplate(context: AppContext, options: SendOptions): Promise<TemplateRequirements> {
  const registry = buildTemplateRegistry(context, { file: options.templatesFile });
  let found: Awaited<ReturnType<typeof registry.find>>;
  try {
    found = await registry.find(options.template, options.language);
  } finally {
    await registry.close();
  }
  const { template, sameName } = found;
  if (template === undefined) {
    const elsewhere = sameName.map((t) => `${t.language} (${t.status})`).join(', ');
    throw new AppError(
      'TEMPLATE_MAPPING_INVALID',
      `Template ${options.template} has no ${options.language} translation` +
        (elsewhere === '' ? ' and no other language either' : `; it exists in ${elsewhere}`) +
        ' (see `campaign templates list`). Nothing was enqueued.',
    );
  }
  return requirementsOf(template);
}

function checkCountry(code: string | undefined): CountryCode | undefined {
  if (code === undefined) return undefined;
  const upper = code.toUpperCase();
  if (!(getCountries() as string[]).includes(upper)) {
    throw new AppError('OPTION_INVALID', `--default-country "${code}": use a two-letter ISO country code such as DE, BR or US`);
  }
  return upper as CountryCode;
}

/** Rejected and skipped rows as they are found: `row,phone,reason`, opened on the first one. */
class RejectsFile {
  readonly #path: string;
  #csv: ReturnType<typeof stringify> | undefined;
  #done: Promise<void> | undefined;
  #closed: Promise<string | undefined> | undefined;
  #opening: Promise<void> | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  add(refused: RefusedRow): void {
    if (this.#csv === undefined) {
      const csv = stringify({ header: true, columns: ['row', 'phone', 'reason'] });
      this.#csv = csv;
      this.#opening = mkdir(join(this.#path, '..'), { recursive: true }).then(() => {
        const out = createWriteStream(this.#path);
        csv.pipe(out);
        this.#done = once(out, 'finish').then(() => undefined);
      });
    }
    this.#csv.write([refused.row, refused.phone, `${refused.reason}: ${refused.detail}`]);
  }

  /** Finishes the file; returns its path, or undefined when no row was refused. */
  close(): Promise<string | undefined> {
    this.#closed ??= (async () => {
      if (this.#csv === undefined) return undefined;
      await this.#opening;
      this.#csv.end();
      await this.#done;
      return this.#path;
    })();
    return this.#closed;
  }
}
