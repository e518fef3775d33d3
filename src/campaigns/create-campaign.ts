import type { MessagingLimit } from '../config/number-settings.js';
import { AppError } from '../errors/app-error.js';
import { ProblemsError } from '../errors/problems-error.js';
import type { TemplateLookup } from '../templates/template-registry.js';
import type { CampaignMedia } from './media/campaign-media.js';
import { requirementsOf, type TemplateRequirements } from '../templates/template-requirements.js';
import { campaignDefinition, type ResolvedMessage } from './campaign-definition.js';
import { translationsOf } from './template-translations.js';
import { newCampaignId } from './campaign-id.js';
import { checkMessagingLimit, type MessagingLimitCheck } from './ingest/messaging-limit-check.js';
import { produceCampaign, type ProduceInput, type ProduceSummary, type SendOutcome } from './ingest/producer.js';
import type { CampaignDefinition } from './campaign.js';
import { RejectsFile, checkWritableDir, rejectsFilePath, type RejectsSink } from './ingest/rejects-file.js';
import { estimateSending } from './feed/send-estimate.js';
import type { IngestLedger } from './ledger.js';
import { usMarketingPaused } from './ingest/us-marketing.js';
import type { CheckedSpec } from './spec/check-spec.js';
import type { FieldNames } from './spec/field-names.js';
import type { MessageChoice } from './spec/message-choice.js';
import { checkEndpointCategory } from './spec/send-endpoint.js';
import { estimateCost, type CostEstimate, type PlanCost } from '../pricing/cost-estimate.js';
import { cardCategoryOf, type RateCard } from '../pricing/rate-card.js';
import type { ClickLinks } from '../clicks/click-links.js';
import { trackedButtonSlot } from '../clicks/click-template.js';

/** The approved templates, as the template registry serves them. */
export interface TemplateFinder {
  find(name: string, language: string): Promise<TemplateLookup>;
  close(): Promise<void>;
}

/**
 * The messaging limit of the number's portfolio (configured, else as last stored), who the
 * portfolio reached in the last 24 h, by Redis's clock, and the rows its other campaigns still have queued.
 */
export interface MessagingReach {
  portfolio: string;
  limit: MessagingLimit | undefined;
  reached: number;
  queuedElsewhere: number;
  oldestReachedAt: number | undefined;
  now: number;
}

/** What creating a campaign needs of the world; the process that runs it builds them from its configuration. */
export interface CreateCampaignDeps {
  ledger: IngestLedger;
  /** REPORTS_DIR: the rejects file is written there. */
  reportsDir: string;
  /** WHATSAPP_PHONE_NUMBER_ID: the number when the spec names none. */
  defaultPhoneNumberId: string | undefined;
  /** The number's send rate in messages per second (0 = unlimited), for the plan. */
  sendRate(phoneNumberId: string): number;
  /** `--require-consent`: per phone, whether an opt-in is on record in the number's portfolio. */
  consented?: ((phoneNumberId: string, phones: readonly string[]) => Promise<boolean[]>) | undefined;
  /** FREQUENCY_CAPS: per phone, whether a cap holds for the campaign's sends now (the plan's estimate); absent: no caps. */
  frequencyCapped?: ((definition: CampaignDefinition, phones: readonly string[]) => Promise<boolean[]>) | undefined;
  /** The approved templates, from `file` when given, else the configured source. Opened for a template campaign only. */
  openTemplates(file: string | undefined): TemplateFinder;
  /** The portfolio's reach, the backlog of this campaign (`campaignId`) not counted. */
  messagingReach(phoneNumberId: string, campaignId: string): Promise<MessagingReach>;
  /** Sets a template's time-to-live through the Cloud API; undefined when this process has no token to do it with. */
  setTemplateTtl?: ((templateId: string, seconds: number) => Promise<void>) | undefined;
  /** PUBLIC_URL: where `serve` answers tracked links (`trackClicks`); undefined: clicks cannot be tracked. */
  publicUrl?: string | undefined;
  /** The index of tracked links, written as rows are read (`trackClicks`); undefined: clicks cannot be tracked. */
  clickLinks?: ClickLinks | undefined;
  /** The rate card the plan's cost is estimated with (RATE_CARD_FILE, read once where the command starts). */
  rateCard?: RateCard | undefined;
  /** Keeps a campaign's estimate, for `status` to show beside what Meta charged (the first send's: a continued one keeps it). */
  recordCostEstimate?: ((campaignId: string, cost: PlanCost) => Promise<void>) | undefined;
  /**
   * The media of a campaign sent by ID (`mediaBy` id), checked and uploaded on its numbers as
   * rows are read; undefined when this process cannot (its rows are then checked by the worker).
   */
  openMedia?: ((phoneNumberIds: readonly string[]) => CampaignMedia) | undefined;
}

export interface CampaignRequest {
  /** The spec, read and checked once where it came in (checkCampaignSpec, or checkSpecWithFile for every problem at once). */
  spec: CheckedSpec;
  /** How the spec's fields are named where it came from (flags, JSON fields): every message about a field uses them. */
  names: FieldNames;
  /** The CSV of recipients. */
  file: string;
  /** The CLI's `--templates FILE`: a list of approved templates to use instead of the configured source. */
  templatesFile?: string | undefined;
  /** `campaign retarget`: the campaign whose chosen rows make `file`; the new one is linked to it. */
  sourceCampaign?: string | undefined;
  /**
   * Where refused rows go instead of REPORTS_DIR/<id>[.dry-run].rejects.csv: the API's dry run keeps
   * them for its answer, so it leaves no file behind.
   */
  rejects?: RejectsSink | undefined;
}

/** Output while the file is read; none of it steers the campaign. */
export interface CreateNotices {
  /** Ctrl-C / SIGTERM: stop reading, keep what was read, pause the campaign. */
  signal?: AbortSignal | undefined;
  /** Once the file is accepted: the campaign ID and how many rows to expect. */
  onStart?: ((start: { id: string; estimatedRows: number; continuing: boolean; dryRun: boolean }) => void) | undefined;
  onProgress?: ((rowsRead: number) => void) | undefined;
}

/**
 * Creates a campaign from a checked spec and a CSV (or continues one, `campaignId`): finds
 * the approved template (a text needs none), reads the file into the ledger (no worker
 * needed; workers feed its rows as the number drains) and plans the sending. A dry run does
 * every check and writes nothing but the rejects file (or not even that: `request.rejects`).
 */
export async function createCampaign(
  deps: CreateCampaignDeps,
  request: CampaignRequest,
  notices: CreateNotices = {},
): Promise<SendOutcome> {
  const now = Date.now();
  const { spec } = request;
  const maxCost = spec.maxCost === undefined ? undefined : { amount: spec.maxCost, name: request.names.maxCost };
  // Before anything is created: a campaign whose rejected rows could be written nowhere must not start.
  await checkWritableDir(deps.reportsDir, 'REPORTS_DIR');
  const message = await resolveMessage(deps, spec.message, request.templatesFile, request.names);
  if (message.kind === 'template') checkEndpointCategory(spec.endpoint, message.requirements, request.names);
  const clickSlot = spec.clicks === undefined ? undefined : trackedSlot(deps, message, request.names);
  const id = spec.campaignId ?? newCampaignId();
  // Meta: on 131050 suppress the recipient for marketing (reference §8). Utility and
  // authentication templates still reach them. A text is skipped for them too: nothing says
  // what its words are, and the opt-out keyword itself opened the window it would go through.
  const optedOut =
    message.kind === 'text' || message.requirements.category === 'MARKETING' ? await deps.ledger.optOuts(spec.phoneNumberId) : undefined;
  const category = message.kind === 'template' ? message.requirements.category : undefined;
  // Meta's marketing cap (131049): the users it capped wait out the wait; texts and other categories are not capped.
  const marketingCapped = category === 'MARKETING' ? await deps.ledger.marketingCaps(spec.phoneNumberId) : undefined;
  const pricing = { card: deps.rateCard, category: cardCategoryOf(category ?? 'service') };
  let defined: CampaignDefinition | undefined;
  const input = {
    file: request.file,
    delimiter: spec.delimiter,
    define: (header: readonly string[]) =>
      (defined = campaignDefinition(
        { id, spec, message, file: request.file, names: request.names, sourceCampaign: request.sourceCampaign, clickSlot },
        header,
      )),
    ...reachChecks(deps, spec, category, () => defined),
    allowRepeat: spec.allowRepeat,
    usMarketingPaused: usMarketingPaused(category, spec.allowUsMarketing),
    names: request.names,
    ...(optedOut === undefined ? {} : { optedOut }),
    ...(marketingCapped === undefined ? {} : { marketingCapped }),
    ...(clickSlot === undefined || deps.clickLinks === undefined ? {} : { clickLinks: deps.clickLinks }),
  };
  // Refused before a row is queued: the file is read once more, as a dry run, to price it first.
  // One reader and uploader for the campaign: a media read for the priced pass is not read again.
  const media = message.kind === 'template' && spec.mediaBy === 'id' ? deps.openMedia?.([spec.phoneNumberId]) : undefined;
  try {
    return await produceAndPlan(deps, { request, notices, spec, message, input, media, maxCost, pricing, id, now });
  } finally {
    await media?.close();
  }
}

/**
 * The tracked button's slot (`trackClicks`), the same in every translation sent: refused before the file is read when
 * PUBLIC_URL is not set, a template has no button at `PUBLIC_URL/c/{{1}}`, or this process cannot record links.
 */
function trackedSlot(deps: CreateCampaignDeps, message: ResolvedMessage, names: FieldNames): string {
  const flag = names.trackClicks;
  if (message.kind === 'text') throw new AppError('CLICK_TRACKING_INVALID', `${flag} counts clicks on a template's URL button`);
  const templates = message.translations?.approved ?? [message.requirements];
  const slots = templates.map((requirements) => trackedButtonSlot(requirements, deps.publicUrl, flag));
  const slot = slots[0] ?? trackedButtonSlot(message.requirements, deps.publicUrl, flag);
  if (slots.some((other) => other !== slot)) {
    throw new AppError(
      'CLICK_TRACKING_INVALID',
      `${flag}: the translations of ${message.requirements.name} have their tracked button in different places ` +
        `(${[...new Set(slots)].join(', ')}): give them the same buttons`,
    );
  }
  if (deps.clickLinks === undefined) throw new AppError('CONFIG_INVALID', `${flag}: this process has no store for tracked links`);
  return slot;
}

/** `--require-consent` (MARKETING only) and the FREQUENCY_CAPS estimate, as the ingest asks them per chunk of rows. */
function reachChecks(
  deps: CreateCampaignDeps,
  spec: CheckedSpec,
  category: string | undefined,
  definition: () => CampaignDefinition | undefined,
): Pick<ProduceInput, 'consented' | 'frequencyCapped'> {
  const { consented, frequencyCapped } = deps;
  return {
    ...(spec.requireConsent && category === 'MARKETING' && consented !== undefined
      ? { consented: (phones: readonly string[]) => consented(spec.phoneNumberId, phones) }
      : {}),
    ...(spec.ignoreFrequencyCaps || frequencyCapped === undefined
      ? {}
      : {
          frequencyCapped: async (phones: readonly string[]) => {
            const made = definition();
            return made === undefined ? phones.map(() => false) : frequencyCapped(made, phones);
          },
        }),
  };
}

interface Production {
  request: CampaignRequest;
  notices: CreateNotices;
  spec: CheckedSpec;
  message: ResolvedMessage;
  input: Parameters<typeof produceCampaign>[1];
  media: CampaignMedia | undefined;
  maxCost: { amount: number; name: string } | undefined;
  pricing: { card: RateCard | undefined; category: ReturnType<typeof cardCategoryOf> };
  id: string;
  now: number;
}

/** Reads the file into the campaign (priced first against `maxCost`) and plans its sending. */
async function produceAndPlan(deps: CreateCampaignDeps, production: Production): Promise<SendOutcome> {
  const { request, notices, spec, message, input, media, maxCost, pricing, id, now } = production;
  const producer = { ledger: deps.ledger, media };
  const rejects = request.rejects ?? new RejectsFile(rejectsFilePath(deps.reportsDir, id, spec.dryRun));
  if (maxCost !== undefined && !spec.dryRun) {
    const priced = await produceCampaign(producer, { ...input, dryRun: true });
    const refusal = costRefusal(costOf(pricing, priced, Math.max(priced.schedule.startsAt ?? now, now)), maxCost);
    if (refusal !== undefined) throw new AppError('COST_ABOVE_MAX', `${refusal}. Nothing was queued.`);
  }
  // The last change before rows are read: nothing refused the campaign, so the template may change.
  if (message.kind === 'template' && spec.ttlSeconds !== undefined && !spec.dryRun) {
    await setTtl(deps, message.requirements, spec.ttlSeconds, request.names);
  }
  try {
    const summary = await produceCampaign(producer, {
      ...input,
      dryRun: spec.dryRun,
      onRefused: (refused) => rejects.add(refused),
      onStart: (start) => notices.onStart?.({ id, dryRun: spec.dryRun, ...start }),
      ...(notices.onProgress ? { onProgress: notices.onProgress } : {}),
      ...(notices.signal ? { signal: notices.signal } : {}),
    });
    const plan = await planSending(deps, spec, message, summary, now);
    const estimate = costOf(pricing, summary, plan.estimate.startsAt);
    const refusal = maxCost === undefined ? undefined : costRefusal(estimate, maxCost);
    if (!spec.dryRun && estimate.cost !== null) await deps.recordCostEstimate?.(id, estimate.cost);
    return {
      ...summary,
      dryRun: spec.dryRun,
      rejectsFile: await rejects.close(),
      ...plan,
      ...estimate,
      rateCard: deps.rateCard?.file ?? null,
      ...(maxCost === undefined ? {} : { maxCost: { amount: maxCost.amount, refused: refusal ?? null } }),
    };
  } finally {
    await rejects.close();
  }
}

/**
 * Meta keeps a marketing template's time-to-live on the template, so `ttl` is set there before
 * any row is read; every later send of the template, this campaign's or another's, has it.
 */
async function setTtl(deps: CreateCampaignDeps, template: TemplateRequirements, seconds: number, names: FieldNames): Promise<void> {
  if (deps.setTemplateTtl === undefined)
    throw new AppError('CONFIG_INVALID', `${names.ttl} sets the template's time-to-live through the Cloud API: set WHATSAPP_ACCESS_TOKEN`);
  if (template.id === undefined) {
    throw new AppError(
      'OPTION_INVALID',
      `${names.ttl}: the template list in use has no ID for ${template.name} (${template.language}); ` +
        'use the Cloud API list (WHATSAPP_BUSINESS_ACCOUNT_ID) or a copy of it that keeps each template\'s "id"',
    );
  }
  await deps.setTemplateTtl(template.id, seconds);
}

/** The plan's cost: the rows to send by market, at the card's rates when the campaign starts. */
function costOf(
  pricing: { card: RateCard | undefined; category: ReturnType<typeof cardCategoryOf> },
  summary: ProduceSummary,
  at: number,
): CostEstimate {
  return estimateCost(pricing.card, pricing.category, summary.byCountry, at);
}

/** Why `--max-cost` refuses this estimate; undefined when it is within the amount. */
export function costRefusal(estimate: CostEstimate, maxCost: { amount: number; name: string }): string | undefined {
  if (estimate.cost === null) return `${maxCost.name} ${maxCost.amount} cannot be checked: ${estimate.costReason}`;
  if (estimate.cost.total <= maxCost.amount) return undefined;
  const { total, currency } = estimate.cost;
  return `the estimated cost, ${total} ${currency}, is above ${maxCost.name} ${maxCost.amount} ${currency}`;
}

/** A template campaign's approved template; a text as it is. */
async function resolveMessage(
  deps: CreateCampaignDeps,
  choice: MessageChoice,
  templatesFile: string | undefined,
  names: FieldNames,
): Promise<ResolvedMessage> {
  if (choice.kind === 'text') return choice;
  const templates = deps.openTemplates(templatesFile);
  if (choice.languageColumn === undefined) {
    return { kind: 'template', requirements: await approvedTemplate(templates, choice.name, choice.language ?? '', names) };
  }
  let found: TemplateLookup;
  try {
    found = await templates.find(choice.name, choice.language ?? '');
  } finally {
    await templates.close();
  }
  const translations = translationsOf(found, choice.name, choice.language, choice.languageColumn, names);
  return { kind: 'template', requirements: translations.fallback ?? translations.approved[0]!, translations };
}

/**
 * The approved template for (name, language), or a refusal that says what exists instead, as a
 * problem naming the field to change (the language when the name exists in others).
 */
export async function approvedTemplate(
  templates: TemplateFinder,
  name: string,
  language: string,
  names: FieldNames,
): Promise<TemplateRequirements> {
  let found: TemplateLookup;
  try {
    found = await templates.find(name, language);
  } finally {
    await templates.close();
  }
  const { template, sameName } = found;
  if (template === undefined) {
    const elsewhere = sameName.map((t) => `${t.language} (${t.status})`).join(', ');
    const detail =
      `Template ${name} has no ${language} translation` +
      (elsewhere === '' ? ' and no other language either' : `; it exists in ${elsewhere}`) +
      ' (see `campaign templates list`). Nothing was enqueued.';
    const field = sameName.length === 0 ? names['template.name'] : names['template.language'];
    throw new ProblemsError([{ code: 'TEMPLATE_MAPPING_INVALID', detail, field }]);
  }
  return requirementsOf(template);
}

/** When it would send, and (a template campaign) how it fits the number's messaging limit. */
async function planSending(
  deps: CreateCampaignDeps,
  spec: CheckedSpec,
  message: ResolvedMessage,
  summary: ProduceSummary,
  now: number,
): Promise<Pick<SendOutcome, 'estimate' | 'sendRate' | 'messagingLimit'>> {
  const recipients = spec.dryRun ? summary.valid : summary.queued;
  // A continued campaign keeps the times it was created with: its plan is from those.
  const startsAt = Math.max(summary.schedule.startsAt ?? now, now);
  const sendRate = deps.sendRate(spec.phoneNumberId);
  const estimate = estimateSending({
    startsAt,
    expiresAt: summary.schedule.expiresAt,
    messagesPerSecond: sendRate,
    window: spec.window,
    rows: recipients,
    lanes: summary.lanes,
  });
  // A text goes only to users whose service window is open: they take no place under the limit.
  if (message.kind === 'text') return { estimate, sendRate };
  return { estimate, sendRate, messagingLimit: await limitCheck(deps, spec.phoneNumberId, summary.id, recipients, startsAt) };
}

/** The number's messaging limit against this campaign's recipients. */
async function limitCheck(
  deps: CreateCampaignDeps,
  phoneNumberId: string,
  campaignId: string,
  recipients: number,
  startsAt: number,
): Promise<MessagingLimitCheck> {
  const reach = await deps.messagingReach(phoneNumberId, campaignId);
  return checkMessagingLimit({
    portfolio: reach.portfolio,
    limit: reach.limit,
    reached: reach.reached,
    queuedElsewhere: reach.queuedElsewhere,
    oldestReachedAt: reach.oldestReachedAt,
    recipients,
    startsAt: Math.max(startsAt, reach.now),
  });
}
