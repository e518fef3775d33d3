import { basename } from 'node:path';
import { nameOfFile } from './campaign-name.js';
import type { TemplateRequirements } from '../templates/template-requirements.js';
import type { CampaignDefinition } from './campaign.js';
import { planSend } from './send-plan.js';
import type { CheckedSpec } from './spec/check-spec.js';
import type { FieldNames } from './spec/field-names.js';
import type { MessageChoice } from './spec/message-choice.js';
import { planText } from './text-plan.js';

/** What the campaign sends: the approved template found for the spec's, or its text. */
export type ResolvedMessage = { kind: 'template'; requirements: TemplateRequirements } | Extract<MessageChoice, { kind: 'text' }>;

export interface DefinitionInput {
  id: string;
  spec: CheckedSpec;
  message: ResolvedMessage;
  /** The CSV's path, for messages; the definition keeps its name only. */
  file: string;
  names: FieldNames;
  /** `campaign retarget`: the campaign whose rows make this one's file. */
  sourceCampaign?: string | undefined;
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
    ...(message.kind === 'template' && message.requirements.category !== undefined ? { category: message.requirements.category } : {}),
    ...(message.kind === 'text'
      ? { text: planText(message.body, message.previewUrl, header, file, names['text.body']) }
      : { plan: planSend(message.requirements, header, spec.columns, names) }),
    ...(input.sourceCampaign === undefined ? {} : { sourceCampaign: input.sourceCampaign }),
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
