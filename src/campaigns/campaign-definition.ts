import { basename } from 'node:path';
import { nameOfFile } from './campaign-name.js';
import type { TemplateRequirements } from '../templates/template-requirements.js';
import type { CampaignDefinition } from './campaign.js';
import { AppError } from '../errors/app-error.js';
import { planSend, type Slot } from './send-plan.js';
import type { Translations } from './template-translations.js';
import type { CheckedSpec } from './spec/check-spec.js';
import type { FieldNames } from './spec/field-names.js';
import type { MessageChoice } from './spec/message-choice.js';
import { planText } from './text-plan.js';
import { trackedColumns, type TrackedClicks } from '../clicks/click-plan.js';

/** What the campaign sends: the approved template found for the spec's, or its text. */
/** `translations`: with a language per row, every approved translation (`requirements` is the fallback's, or the first's). */
export type ResolvedMessage =
  { kind: 'template'; requirements: TemplateRequirements; translations?: Translations } | Extract<MessageChoice, { kind: 'text' }>;

export interface DefinitionInput {
  id: string;
  spec: CheckedSpec;
  message: ResolvedMessage;
  /** The CSV's path, for messages; the definition keeps its name only. */
  file: string;
  names: FieldNames;
  /** `campaign retarget`: the campaign whose rows make this one's file. */
  sourceCampaign?: string | undefined;
  /** With `spec.clicks`: the template's tracked button's slot (src/clicks/click-template.ts). */
  clickSlot?: string | undefined;
}

/**
 * The campaign for a checked spec and the CSV's header: the template's plan (which column
 * fills which variable) or the text's, with the number, times, window and how rows are read.
 * Throws when the header cannot fill the message, before anything is written.
 */
export function campaignDefinition(input: DefinitionInput, header: readonly string[]): CampaignDefinition {
  const { id, spec, message, file, names } = input;
  const name = spec.name ?? nameOfFile(file);
  return {
    id,
    ...(name === undefined ? {} : { name }),
    createdAt: Date.now(),
    phoneNumberId: spec.phoneNumberId,
    ...(spec.priority === 'normal' ? {} : { priority: spec.priority }),
    ...spec.schedule,
    ...(spec.window === undefined ? {} : { window: spec.window }),
    ...(spec.allowUsMarketing ? { allowUsMarketing: true as const } : {}),
    ...(spec.endpoint === 'marketing-messages' ? { endpoint: 'marketing-messages' as const } : {}),
    ...(spec.mediaBy === 'id' && message.kind === 'template' && hasMedia(message.requirements) ? { mediaBy: 'id' as const } : {}),
    ...(message.kind === 'template' && message.requirements.category !== undefined ? { category: message.requirements.category } : {}),
    ...(message.kind === 'text'
      ? { text: planText(message.body, message.previewUrl, header, file, names['text.body']) }
      : templatePlans(message, header, spec, names, clicksOf(input))),
    ...(input.sourceCampaign === undefined ? {} : { sourceCampaign: input.sourceCampaign }),
    ...reachFields(spec),
    ...(clicksOf(input) === undefined ? {} : { clicks: clicksOf(input) }),
    source: {
      file: basename(file),
      phoneColumn: spec.phoneColumn,
      fixWhitespace: spec.fixWhitespace,
      ...(spec.defaultCountry === undefined ? {} : { defaultCountry: spec.defaultCountry }),
      ...(spec.timezoneColumn === undefined ? {} : { timezoneColumn: spec.timezoneColumn }),
      ...(spec.defaultTimezone === undefined ? {} : { defaultTimezone: spec.defaultTimezone }),
    },
  };
}

/**
 * The plan of the template; with a language per row, one per approved translation, each
 * reading the row's language first (a slot of its own, so the language is kept with the row's
 * values, retargeted with them and part of what makes a message a repeat).
 */
function templatePlans(
  message: Extract<ResolvedMessage, { kind: 'template' }>,
  header: readonly string[],
  spec: CheckedSpec,
  names: FieldNames,
  clicks: TrackedClicks | undefined,
): Pick<CampaignDefinition, 'plan' | 'languages'> {
  const plan = (requirements: TemplateRequirements) =>
    planSend(
      requirements,
      header,
      clicks === undefined ? spec.columns : trackedColumns(spec.columns, requirements, clicks, header, names),
      names,
      { endpoint: spec.endpoint },
    );
  const translations = message.translations;
  if (translations === undefined) return { plan: plan(message.requirements) };
  if (!header.includes(translations.column)) {
    throw new AppError(
      'CSV_HEADER_INVALID',
      `the header has no language column "${translations.column}" (${names['csv.languageColumn']}). Columns found: ` +
        `${header.map((c) => `"${c}"`).join(', ')}. Nothing was enqueued.`,
    );
  }
  const language: Slot = { name: 'language', kind: 'language', component: 'language', column: translations.column };
  const plans = translations.approved.map((requirements) => {
    const own = plan(requirements);
    return { ...own, slots: [language, ...own.slots] };
  });
  const primary = plans.find((p) => p.language === message.requirements.language) ?? plans[0]!;
  return { plan: primary, languages: { column: translations.column, fallback: translations.fallback !== undefined, plans } };
}

/** The tracked button and the destination column, when the campaign tracks clicks. */
function clicksOf(input: DefinitionInput): TrackedClicks | undefined {
  const { clicks } = input.spec;
  if (clicks === undefined || input.message.kind === 'text') return undefined;
  // createCampaign finds the slot from the template before the file is read: without it nothing could be tracked.
  if (input.clickSlot === undefined) throw new Error('a campaign that tracks clicks was defined without its tracked button');
  return { slot: input.clickSlot, column: clicks.urlColumn };
}

/** What the definition keeps of the spec's reach options: the audience it came from, consent, caps, a test. */
function reachFields(spec: CheckedSpec): Partial<CampaignDefinition> {
  const { audience } = spec;
  return {
    ...(audience === undefined
      ? {}
      : { audience: { name: audience.name, ...(audience.where === undefined ? {} : { where: audience.where.text }) } }),
    ...(spec.requireConsent ? { requireConsent: true as const } : {}),
    ...(spec.ignoreFrequencyCaps ? { ignoreFrequencyCaps: true as const } : {}),
    ...(spec.retryCappedAfterMs === undefined ? {} : { retryCappedAfterMs: spec.retryCappedAfterMs }),
    ...(spec.testTo === undefined ? {} : { test: true as const }),
  };
}

/** Whether a send of the template carries media: a media header, or a card's. */
function hasMedia(requirements: TemplateRequirements): boolean {
  return requirements.slots.some((slot) => slot.kind === 'media');
}
