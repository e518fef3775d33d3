import { z } from 'zod';
import { ProblemsError, type ProblemItem } from '../errors/problems-error.js';
import type { TemplateRequirements } from '../templates/template-requirements.js';
import type { TemplateSlot } from '../templates/slots/template-slot.js';
import { placeSlots, type ColumnNames, type ColumnOptions, type SlotProblem } from './slot-mapping.js';

export type { ColumnNames, ColumnOptions } from './slot-mapping.js';

/**
 * Which CSV column fills which slot of the template, decided once per campaign from the
 * approved template. The producer checks rows against it, the worker builds each request
 * from it, and a job carries only the values, in slot order.
 */
const slotFields = z.object({
  /** The slot's stable name (`body.1`, `button.1.coupon_code`, `card.0.header.image`): src/templates/slots/template-slot.ts. */
  name: z.string(),
  kind: z.enum([
    'text',
    'url',
    'media',
    'filename',
    'location',
    'location_name',
    'location_address',
    'coupon_code',
    'payload',
    'flow_token',
    'flow_action_data',
    'expiration',
    'product',
    'catalog_id',
    'thumbnail',
    'sections',
    /** The row's language, with a language per row: always the plan's first slot. */
    'language',
  ]),
  component: z.enum(['header', 'body', 'button', 'limited_time_offer', 'language']),
  /** Placeholder name of a text slot: `1`, `2`… (positional) or `first_name` (named). */
  variable: z.string().optional(),
  /** Position of the button in the template (button slots only). */
  buttonIndex: z.number().int().min(0).optional(),
  subType: z.enum(['url', 'quick_reply', 'copy_code', 'flow', 'catalog', 'mpm', 'spm']).optional(),
  /** A carousel card's index. */
  card: z.number().int().min(0).optional(),
  media: z.enum(['image', 'video', 'document', 'gif']).optional(),
  maxLength: z.number().int().positive().optional(),
  /** Filled with that slot's value (an authentication code's button): mapped through it, never itself. */
  sameAs: z.string().optional(),
  column: z.string(),
});

/** A plan stored before slots had names held header, body and URL-button variables only: read as those slots. */
export const slotSchema = z.preprocess((raw) => {
  if (typeof raw !== 'object' || raw === null || 'name' in raw) return raw;
  const old = raw as { component?: string; variable?: string; buttonIndex?: number };
  if (old.component === 'button') {
    return { ...old, name: `button.${old.buttonIndex ?? 0}.url`, kind: 'url', subType: 'url', buttonIndex: old.buttonIndex ?? 0 };
  }
  return { ...old, name: `${old.component ?? 'body'}.${old.variable ?? ''}`, kind: 'text' };
}, slotFields);
export type Slot = z.infer<typeof slotFields>;

export const sendPlanSchema = z.object({
  name: z.string(),
  language: z.string(),
  parameterFormat: z.enum(['POSITIONAL', 'NAMED']),
  slots: z.array(slotSchema),
  /** The message's own media header: its link is kept apart from the values (a row's `headerLink`). */
  headerMedia: z
    .object({
      format: z.enum(['image', 'video', 'document', 'gif']),
      column: z.string(),
      /** `file`: the column holds local files' paths (`--header-file-column`), not links. */
      from: z.literal('file').optional(),
    })
    .optional(),
  /** Template texts, to check the rendered length of each row before it is queued. */
  bodyText: z.string(),
  headerText: z.string().optional(),
  /** A carousel's card bodies, in card order: each is checked against Meta's 160 characters too. */
  cardBodyTexts: z.array(z.string()).optional(),
});
export type SendPlan = z.infer<typeof sendPlanSchema>;

export interface PlanContext {
  endpoint?: 'messages' | 'marketing-messages' | undefined;
}

/**
 * The plan for a template and the CSV header, or one error listing every problem: a required
 * slot no column fills (TEMPLATE_SLOT_UNFILLED), a column the file lacks, a template that
 * cannot be sent (TEMPLATE_MAPPING_INVALID). Nothing is enqueued for a campaign whose plan fails.
 */
export function planSend(
  requirements: TemplateRequirements,
  header: readonly string[],
  options: ColumnOptions,
  names: ColumnNames,
  context: PlanContext = {},
): SendPlan {
  const placed = placeSlots(requirements, header, options, names);
  const problems: SlotProblem[] = [...templateProblems(requirements, context, names), ...placed.problems];
  if (problems.length > 0) throw planError(requirements, header, problems);
  const media = placed.slots.find((s) => s.slot.card === undefined && s.slot.kind === 'media');
  return {
    name: requirements.name,
    language: requirements.language,
    parameterFormat: requirements.parameterFormat,
    slots: placed.slots.filter((s) => s !== media).map(planSlot),
    ...(media === undefined ? {} : { headerMedia: headerMediaOf(media.slot, media.column, options) }),
    bodyText: requirements.body.text,
    ...(requirements.header.kind === 'text' ? { headerText: requirements.header.text } : {}),
    ...(requirements.cardBodies.length === 0 ? {} : { cardBodyTexts: requirements.cardBodies }),
  };
}

function headerMediaOf(slot: TemplateSlot, column: string, options: ColumnOptions): NonNullable<SendPlan['headerMedia']> {
  const fromFile = options.headerFileColumn !== undefined && column === options.headerFileColumn;
  return { format: slot.media ?? 'image', column, ...(fromFile ? { from: 'file' as const } : {}) };
}

function planSlot({ slot, column }: { slot: TemplateSlot; column: string }): Slot {
  const { name, kind, component, variable, button, card, media, maxLength, sameAs } = slot;
  return {
    name,
    kind,
    component,
    column,
    ...(variable === undefined ? {} : { variable }),
    ...(button === undefined ? {} : { buttonIndex: button.index, subType: button.subType }),
    ...(card === undefined ? {} : { card }),
    ...(media === undefined ? {} : { media }),
    ...(maxLength === undefined ? {} : { maxLength }),
    ...(sameAs === undefined ? {} : { sameAs }),
  };
}

/** What stops the template itself being sent, whatever the file: its status, a header the endpoint cannot carry. */
function templateProblems(requirements: TemplateRequirements, context: PlanContext, names: ColumnNames): SlotProblem[] {
  const problems: SlotProblem[] = [];
  if (requirements.status !== 'APPROVED') {
    problems.push({ code: 'TEMPLATE_MAPPING_INVALID', text: `its status is ${requirements.status}; only APPROVED templates can be sent` });
  }
  if (requirements.header.kind === 'media' && requirements.header.format === 'GIF' && context.endpoint !== 'marketing-messages') {
    problems.push({
      code: 'TEMPLATE_ENDPOINT_UNSUPPORTED',
      text: `its header is a GIF, which Meta sends only through the Marketing Messages API: pass ${names.endpoint} marketing-messages`,
    });
  }
  return problems;
}

function planError(requirements: TemplateRequirements, header: readonly string[], problems: readonly SlotProblem[]): ProblemsError {
  const template = `Template ${requirements.name} (${requirements.language})`;
  const items: ProblemItem[] = problems.map((p) => ({
    code: p.code,
    detail: `${template}: ${p.text}`,
    ...(p.column === undefined ? {} : { column: p.column }),
  }));
  // One message for the operator; an item per problem, a missing column named, for the API.
  return new ProblemsError(items, {
    code: problems[0]?.code ?? 'TEMPLATE_MAPPING_INVALID',
    message:
      `${template} cannot be sent from this file:\n  - ${problems.map((p) => p.text).join('\n  - ')}\n` +
      `Columns in the file: ${header.map((c) => `"${c}"`).join(', ')}. Nothing was enqueued.`,
  });
}
