import { z } from 'zod';
import { requirementsOf, type HeaderRequirement } from '../../templates/template-requirements.js';
import type { MessageTemplate } from '../../templates/template-schema.js';
import { TEMPLATE_KINDS } from '../../templates/slots/template-slot.js';
import {
  buttonPreview,
  buttonPreviewSchema,
  cardPreviews,
  cardPreviewSchema,
  offerPreview,
  offerPreviewSchema,
} from './template-card-preview.js';

const names = z.array(z.string());

/**
 * A template as `campaign templates list --json` prints it and the HTTP API answers it
 * (`Template` in its OpenAPI document), with what a page needs to show it. The one definition
 * of both: the type is derived from it and the document shows it, descriptions included.
 */
export const templateViewSchema = z
  .object({
    name: z.string(),
    language: z.string(),
    status: z.string(),
    category: z.string().nullable(),
    parameterFormat: z.enum(['POSITIONAL', 'NAMED']),
    kind: z.enum(TEMPLATE_KINDS).meta({ description: 'What kind of template it is, by what decides how it is sent (docs/templates.md).' }),
    slots: z
      .array(
        z.object({
          name: z.string().meta({ description: 'The stable name a mapping uses: `--param SLOT=COLUMN`, `csv.paramColumns` in a spec.' }),
          kind: z.string().meta({ description: 'What the value is: text, url, media, location, coupon_code, payload, expiration, …' }),
          required: z
            .boolean()
            .meta({ description: 'A send without it is malformed at Meta; an optional slot is left out when unmapped.' }),
          about: z.string(),
          sameAs: z.string().nullable().meta({ description: 'Filled from that slot, never mapped itself (an authentication code).' }),
        }),
      )
      .meta({ description: 'Every slot a send must or may fill, in the order a send carries them.' }),
    variables: names.meta({
      description: 'What a send must fill, as the CLI lists it: `header {{1}}`, `body {{1}} {{2}}`, `button 0 url {{1}}`.',
    }),
    header: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('none') }),
      z.object({ kind: z.literal('text'), text: z.string(), variables: names }),
      z.object({ kind: z.literal('media'), format: z.enum(['IMAGE', 'VIDEO', 'DOCUMENT', 'GIF']) }),
      z.object({ kind: z.literal('location') }),
      z.object({ kind: z.literal('product') }),
    ]),
    bodyVariables: names.meta({ description: 'The body placeholders: `1`, `2`… (positional) or their names (named).' }),
    urlButtons: z.array(z.object({ index: z.number().int().min(0), variables: names })),
    parameterCount: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Values a send fills: header (text variables or media link), body, URL buttons.' }),
    quality: z.string().nullable().meta({ description: "Meta's quality rating (GREEN, YELLOW, RED, UNKNOWN); null when not known." }),
    // The approved texts, placeholders as written, for showing the message.
    preview: z.object({
      header: z.object({ format: z.string(), text: z.string().nullable() }).nullable(),
      body: z.string().meta({ description: 'The body as approved, placeholders (`{{1}}`, `{{first_name}}`) as written.' }),
      footer: z.string().nullable(),
      buttons: z.array(buttonPreviewSchema),
      cards: z.array(cardPreviewSchema).optional().meta({ description: "A carousel's cards, in order; absent for other templates." }),
      offer: offerPreviewSchema.optional().meta({ description: 'A limited-time offer; absent for other templates.' }),
    }),
  })
  .meta({ id: 'Template' });

export type TemplateView = z.output<typeof templateViewSchema>;

/** What a page needs to draw a template: its header, body, footer and buttons as approved. */
type TemplatePreview = TemplateView['preview'];

export interface TemplateListing {
  /** Sorted by name, then language. */
  shown: MessageTemplate[];
  /** How many were left out because they are not APPROVED. */
  hidden: number;
  all: boolean;
}

/** APPROVED templates only unless `all`; sorted by name, then language. */
export function templateListing(templates: readonly MessageTemplate[], options: { all?: boolean | undefined } = {}): TemplateListing {
  const all = options.all === true;
  const shown = templates
    .filter((t) => all || t.status === 'APPROVED')
    .sort((a, b) => compare(a.name, b.name) || compare(a.language, b.language));
  return { shown, hidden: templates.length - shown.length, all };
}

export function templatesJson(listing: TemplateListing): TemplateView[] {
  return listing.shown.map(templateView);
}

export function templateView(template: MessageTemplate): TemplateView {
  const r = requirementsOf(template);
  const variables: string[] = [];
  const header = headerVariables(r.header);
  if (header !== undefined) variables.push(header);
  if (r.body.variables.length > 0) variables.push(`body ${braces(r.body.variables)}`);
  for (const button of r.urlButtons) variables.push(`button ${button.index} url ${braces(button.variables)}`);
  return {
    name: r.name,
    language: r.language,
    status: r.status,
    category: r.category ?? null,
    parameterFormat: r.parameterFormat,
    kind: r.kind,
    slots: r.slots.map((s) => ({ name: s.name, kind: s.kind, required: s.required, about: s.about, sameAs: s.sameAs ?? null })),
    variables,
    header: r.header,
    bodyVariables: r.body.variables,
    urlButtons: r.urlButtons.map((b) => ({ index: b.index, variables: b.variables })),
    parameterCount: parameterCount(r.header, r.body.variables, r.urlButtons),
    quality: template.quality_score?.score ?? null,
    preview: templatePreview(template),
  };
}

function parameterCount(header: HeaderRequirement, body: readonly string[], buttons: readonly { variables: string[] }[]): number {
  const headerValues = header.kind === 'text' ? header.variables.length : header.kind === 'media' ? 1 : 0;
  return headerValues + body.length + buttons.reduce((sum, button) => sum + button.variables.length, 0);
}

function templatePreview(template: MessageTemplate): TemplatePreview {
  const preview: TemplatePreview = { header: null, body: '', footer: null, buttons: [] };
  for (const component of template.components) {
    if (component.type === 'HEADER') preview.header = { format: component.format, text: component.text ?? null };
    else if (component.type === 'BODY') preview.body = component.text;
    else if (component.type === 'FOOTER') preview.footer = component.text;
    // A carousel's buttons are on its cards, and a limited-time offer has none of its own.
    else if (component.type === 'BUTTONS') preview.buttons = component.buttons.map(buttonPreview);
    else if (component.type === 'CAROUSEL') preview.cards = cardPreviews(component);
  }
  const offer = offerPreview(template);
  if (offer !== undefined) preview.offer = offer;
  return preview;
}

/** What a send must fill in the header, as the listing shows it: `header {{1}}`, `header image link`, `header location`. */
function headerVariables(header: HeaderRequirement): string | undefined {
  switch (header.kind) {
    case 'none':
      return undefined;
    case 'text':
      return header.variables.length > 0 ? `header ${braces(header.variables)}` : undefined;
    case 'media':
      return `header ${header.format.toLowerCase()} link`;
    case 'location':
      return 'header location';
  }
}

function braces(names: readonly string[]): string {
  return names.map((n) => `{{${n}}}`).join(' ');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
