import { basename, join } from 'node:path';
import { getCountries, type CountryCode } from 'libphonenumber-js';
import { CAMPAIGN_ID_PATTERN, newCampaignId } from '../src/campaigns/campaign-id.js';
import type { CampaignDefinition } from '../src/campaigns/campaign.js';
import { produceCampaign, type SendOutcome } from '../src/campaigns/ingest/producer.js';
import { planSend, type ColumnOptions } from '../src/campaigns/send-plan.js';
import { parseTextBody, planText } from '../src/campaigns/text-plan.js';
import { AppError } from '../src/errors/app-error.js';
import { parseSchedule, type ScheduleOptions } from '../src/cli/time-options.js';
import { estimateSending } from '../src/campaigns/ingest/send-estimate.js';
import { parseSendWindow } from '../src/campaigns/send-window.js';
import { canonicalZone } from '../src/phone/recipient-zones.js';
import { requirementsOf, type TemplateRequirements } from '../src/templates/template-requirements.js';
import type { AppContext } from './app-context.js';
import { buildTemplateRegistry } from './templates-command.js';
import { RejectsFile, checkWritableDir } from './rejects-file.js';
import { sendRateOf } from '../src/config/config.js';
import { checkMessagingLimit, type MessagingLimitCheck } from '../src/campaigns/ingest/messaging-limit-check.js';
import { readMessagingReach } from '../src/redis/messaging-reach-read.js';

export interface SendOptions extends ColumnOptions {
  file: string;
  /** An approved template and its language, or `text`: exactly one of the two. */
  template?: string | undefined;
  language?: string | undefined;
  /** `--text "Hi {{name}}…"`: a free-form text whose placeholders name columns (only inside 24-hour windows). */
  text?: string | undefined;
  /** `--preview-url` (with --text): a preview of the first link is shown. */
  previewUrl?: boolean | undefined;
  phoneColumn: string;
  phoneNumberId?: string | undefined;
  campaignId?: string | undefined;
  templatesFile?: string | undefined;
  delimiter?: string | undefined;
  defaultCountry?: string | undefined;
  fixWhitespace?: boolean | undefined;
  dryRun?: boolean | undefined;
  /** `--allow-repeat`: send even what this number already sent to the recipient within DUPLICATE_WINDOW_HOURS. */
  allowRepeat?: boolean | undefined;
  /** `--priority high|normal|low` (default normal). */
  priority?: string | undefined;
  /** `--window 09:00-20:00` in each recipient's local time, `--days mon-fri`, `--timezone-column COL`. */
  window?: string | undefined;
  days?: string | undefined;
  timezoneColumn?: string | undefined;
  /** `--default-timezone ZONE`: the zone of rows whose number gives none, or zones that never share an open hour. */
  defaultTimezone?: string | undefined;
  /** `--at`, `--start-deadline`, `--expires-at`, `--valid-for`, as given. */
  schedule?: ScheduleOptions | undefined;
  /** Ctrl-C / SIGTERM: stop reading, keep what was read, pause the campaign. */
  signal?: AbortSignal | undefined;
  /** Once the file is accepted: the campaign ID and how many rows to expect (for the operator, on stderr). */
  onStart?: (start: { id: string; estimatedRows: number; continuing: boolean; dryRun: boolean }) => void;
  onProgress?: (rowsRead: number) => void;
}

/**
 * `campaign send`: checks the mapping against the approved template (or the `--text` against
 * the header), then reads the CSV into
 * a campaign (no worker needed; workers feed its rows to the queue as the number drains). `--dry-run` does every check and writes nothing
 * but the rejects file.
 */
export async function runSend(context: AppContext, options: SendOptions): Promise<SendOutcome> {
  const { config, ledger } = context;
  const message = messageOptions(options);
  const phoneNumberId = options.phoneNumberId ?? config.phoneNumberId;
  if (phoneNumberId === undefined) {
    throw new AppError('CONFIG_INVALID', 'No phone number to send from: set WHATSAPP_PHONE_NUMBER_ID or pass --phone-number-id');
  }
  if (!/^\d+$/.test(phoneNumberId)) {
    throw new AppError('OPTION_INVALID', `--phone-number-id "${phoneNumberId}": give the numeric phone-number ID from WhatsApp Manager`);
  }
  if (options.campaignId !== undefined && !CAMPAIGN_ID_PATTERN.test(options.campaignId)) {
    throw new AppError(
      'OPTION_INVALID',
      `--campaign "${options.campaignId}": a campaign ID starts with a letter and has only letters, digits, _ and - (at most 64)`,
    );
  }
  const defaultCountry = checkCountry(options.defaultCountry);
  const priority = checkPriority(options.priority);
  const now = Date.now();
  const schedule = parseSchedule(options.schedule ?? {}, now);
  const window = sendWindowOf(options);
  const defaultTimezone = checkZone('--default-timezone', options.defaultTimezone);
  // Before anything is created: a campaign whose rejected rows could be written nowhere must not start.
  await checkWritableDir(config.reportsDir, 'REPORTS_DIR');
  // A text needs no template: no registry lookup, no approval check.
  const requirements = message.kind === 'template' ? await approvedTemplate(context, message.template, message.language, options.templatesFile) : undefined;
  const id = options.campaignId ?? newCampaignId();
  const define = (header: readonly string[]): CampaignDefinition => ({
    id,
    createdAt: Date.now(),
    phoneNumberId,
    ...(priority === 'normal' ? {} : { priority }),
    ...schedule,
    ...(window === undefined ? {} : { window }),
    ...(requirements === undefined
      ? { text: planText(options.text ?? '', options.previewUrl === true, header, options.file) }
      : { plan: planSend(requirements, header, options) }),
    source: {
      file: basename(options.file),
      phoneColumn: options.phoneColumn,
      fixWhitespace: options.fixWhitespace === true,
      ...(defaultCountry === undefined ? {} : { defaultCountry }),
      ...(options.timezoneColumn === undefined ? {} : { timezoneColumn: options.timezoneColumn }),
      ...(defaultTimezone === undefined ? {} : { defaultTimezone }),
    },
  });

  const rejects = new RejectsFile(join(config.reportsDir, `${id}${options.dryRun === true ? '.dry-run' : ''}.rejects.csv`));
  // Meta: on 131050 suppress the recipient for marketing (reference §8). Utility and
  // authentication templates still reach them. A text is skipped for them too: nothing says
  // what its words are, and the opt-out keyword itself opened the window it would go through.
  const optedOut = requirements === undefined || requirements.category === 'MARKETING' ? await ledger.optOuts(phoneNumberId) : undefined;
  const dryRun = options.dryRun === true;
  try {
    const summary = await produceCampaign(
      { ledger },
      {
        file: options.file,
        delimiter: options.delimiter,
        define,
        dryRun,
        allowRepeat: options.allowRepeat === true,
        onRefused: (refused) => rejects.add(refused),
        onStart: (start) => options.onStart?.({ id, dryRun, ...start }),
        ...(optedOut === undefined ? {} : { optedOut }),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    // A continued campaign keeps the times it was created with: its plan is from those.
    const startsAt = Math.max(summary.schedule.startsAt ?? now, now);
    const estimate = estimateSending({
      startsAt,
      expiresAt: summary.schedule.expiresAt,
      messagesPerSecond: sendRateOf(config.send, phoneNumberId),
      window,
      rows: dryRun ? summary.valid : summary.queued,
      lanes: summary.lanes,
    });
    // A text goes only to users whose service window is open: they take no place under the limit.
    const messagingLimit = requirements === undefined ? undefined : await limitCheck(context, phoneNumberId, dryRun ? summary.valid : summary.queued, startsAt);
    return { ...summary, dryRun, rejectsFile: await rejects.close(), estimate, ...(messagingLimit === undefined ? {} : { messagingLimit }) };
  } finally {
    await rejects.close();
  }
}

/** The number's messaging limit (MESSAGING_LIMITS, else what a worker read from the API) against this campaign's recipients. */
async function limitCheck(context: AppContext, phoneNumberId: string, recipients: number, startsAt: number): Promise<MessagingLimitCheck> {
  const read = await readMessagingReach(context.redis, context.config.queuePrefix, phoneNumberId);
  const limit = context.config.messagingLimits.get(phoneNumberId) ?? read.storedLimit;
  return checkMessagingLimit({ limit, reached: read.reached, oldestReachedAt: read.oldestReachedAt, recipients, startsAt: Math.max(startsAt, read.now) });
}

/**
 * What to send: `--template NAME --language CODE`, or `--text "…"`: exactly one of them, and
 * the options of the other kind refused, each saying how to fix the command. The text's own
 * syntax is checked here too, before any file is opened.
 */
function messageOptions(options: SendOptions): { kind: 'template'; template: string; language: string } | { kind: 'text' } {
  const refuse = (problem: string) => new AppError('OPTION_INVALID', problem);
  if (options.text !== undefined) {
    const both = [options.template === undefined ? '' : '--template', options.language === undefined ? '' : '--language'].filter((o) => o !== '');
    if (both.length > 0) {
      throw refuse(`--text sends a free-form text, ${both.join(' and ')} an approved template: give one or the other (drop ${both.join(' and ')}, or drop --text)`);
    }
    const templateOnly: [string, boolean][] = [
      ['--params', options.params !== undefined],
      ['--param', Object.keys(options.paramColumns ?? {}).length > 0],
      ['--header-text-column', options.headerTextColumn !== undefined],
      ['--header-image-column', options.headerMediaColumn !== undefined],
      ['--button-url-column', options.buttonUrlColumns !== undefined],
      ['--templates', options.templatesFile !== undefined],
    ];
    const given = templateOnly.filter(([, set]) => set).map(([name]) => name);
    if (given.length > 0) {
      throw refuse(`${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} for templates; with --text, name each column in the text itself as {{column}} (e.g. --text "Hi {{first_name}}")`);
    }
    parseTextBody(options.text);
    return { kind: 'text' };
  }
  if (options.previewUrl === true) throw refuse('--preview-url applies to --text only (a template shows the link preview its approved form has)');
  if (options.template === undefined && options.language === undefined) {
    throw refuse(
      'say what to send: --template NAME --language CODE for an approved template (see `campaign templates list`), ' +
        'or --text "Hi {{name}}, …" for a free-form text to recipients who wrote to the number in the last 24 hours',
    );
  }
  if (options.template === undefined) throw refuse(`--language ${options.language ?? ''} needs --template NAME (see \`campaign templates list\`), or use --text without --language`);
  if (options.language === undefined) throw refuse(`--template ${options.template} needs --language CODE, e.g. en_US (see \`campaign templates list\`)`);
  return { kind: 'template', template: options.template, language: options.language };
}

/** The approved template for (name, language), or a refusal that says what exists instead. */
async function approvedTemplate(context: AppContext, name: string, language: string, templatesFile: string | undefined): Promise<TemplateRequirements> {
  const registry = buildTemplateRegistry(context, { file: templatesFile });
  let found: Awaited<ReturnType<typeof registry.find>>;
  try {
    found = await registry.find(name, language);
  } finally {
    await registry.close();
  }
  const { template, sameName } = found;
  if (template === undefined) {
    const elsewhere = sameName.map((t) => `${t.language} (${t.status})`).join(', ');
    throw new AppError(
      'TEMPLATE_MAPPING_INVALID',
      `Template ${name} has no ${language} translation` +
        (elsewhere === '' ? ' and no other language either' : `; it exists in ${elsewhere}`) +
        ' (see `campaign templates list`). Nothing was enqueued.',
    );
  }
  return requirementsOf(template);
}

/** `--window` and `--days`; `--days` or `--timezone-column` alone would do nothing, so they are refused. */
function sendWindowOf(options: SendOptions): ReturnType<typeof parseSendWindow> | undefined {
  if (options.window === undefined) {
    const alone =
      options.days !== undefined
        ? '--days'
        : options.timezoneColumn !== undefined
          ? '--timezone-column'
          : options.defaultTimezone !== undefined
            ? '--default-timezone'
            : undefined;
    if (alone !== undefined) throw new AppError('OPTION_INVALID', `${alone} needs --window HH:MM-HH:MM (the hours of the recipient's local day to send in)`);
    return undefined;
  }
  return parseSendWindow(options.window, options.days);
}

/** An IANA zone option, by its canonical name (an alias resolved). */
function checkZone(flag: string, zone: string | undefined): string | undefined {
  if (zone === undefined) return undefined;
  const canonical = canonicalZone(zone.trim());
  if (canonical === undefined) throw new AppError('OPTION_INVALID', `${flag} "${zone.slice(0, 64)}": give an IANA time zone as Area/City, e.g. Europe/Berlin or America/New_York`);
  return canonical;
}

const PRIORITIES = ['high', 'normal', 'low'] as const;

function checkPriority(level: string | undefined): (typeof PRIORITIES)[number] {
  if (level === undefined) return 'normal';
  const found = PRIORITIES.find((p) => p === level.toLowerCase());
  if (found === undefined) throw new AppError('OPTION_INVALID', `--priority "${level}": use high, normal or low`);
  return found;
}

function checkCountry(code: string | undefined): CountryCode | undefined {
  if (code === undefined) return undefined;
  const upper = code.toUpperCase();
  if (!(getCountries() as string[]).includes(upper)) {
    throw new AppError('OPTION_INVALID', `--default-country "${code}": use a two-letter ISO country code such as DE, BR or US`);
  }
  return upper as CountryCode;
}

