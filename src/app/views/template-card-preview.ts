import { z } from 'zod';
import type { MessageTemplate, TemplateButton, TemplateComponent } from '../../templates/template-schema.js';

/**
 * The parts of a template's preview that only some kinds have: a carousel's cards and a
 * limited-time offer's heading. A page draws the message from them as WhatsApp shows it; they
 * are left out of the view of a template without them, so the view of a plain one is as it was.
 */
export const buttonPreviewSchema = z.object({
  type: z.string(),
  text: z.string().nullable(),
  url: z.string().nullable(),
  phoneNumber: z.string().nullable(),
});

export const cardPreviewSchema = z.object({
  header: z
    .object({ format: z.string() })
    .nullable()
    .meta({ description: "The card's header: IMAGE or VIDEO (its link is each send's), PRODUCT (a product card)." }),
  body: z.string().nullable().meta({ description: "The card's body as approved, placeholders as written; null when it has none." }),
  buttons: z.array(buttonPreviewSchema),
});

export const offerPreviewSchema = z.object({
  text: z.string().nullable().meta({ description: "The offer's heading (Meta's `limited_time_offer.text`)." }),
  hasExpiration: z.boolean().meta({ description: 'The message shows a countdown to the end each send gives (`lto.expiration`).' }),
});

export type ButtonPreview = z.output<typeof buttonPreviewSchema>;
export type CardPreview = z.output<typeof cardPreviewSchema>;
export type OfferPreview = z.output<typeof offerPreviewSchema>;

export function buttonPreview(b: TemplateButton): ButtonPreview {
  return { type: b.type, text: b.text ?? null, url: b.url ?? null, phoneNumber: b.phone_number ?? null };
}

type Carousel = Extract<TemplateComponent, { type: 'CAROUSEL' }>;

/** Each card of a carousel, in order: header format, body text and buttons. */
export function cardPreviews(carousel: Carousel): CardPreview[] {
  return carousel.cards.map((card) => {
    const preview: CardPreview = { header: null, body: null, buttons: [] };
    for (const c of card.components) {
      if (c.type === 'HEADER') preview.header = { format: c.format };
      else if (c.type === 'BODY') preview.body = c.text;
      else preview.buttons = c.buttons.map(buttonPreview);
    }
    return preview;
  });
}

/** A limited-time offer's heading and whether it counts down; undefined for a template without one. */
export function offerPreview(template: MessageTemplate): OfferPreview | undefined {
  const offer = template.components.find((c) => c.type === 'LIMITED_TIME_OFFER');
  if (offer === undefined) return undefined;
  return { text: offer.limited_time_offer?.text ?? null, hasExpiration: offer.limited_time_offer?.has_expiration === true };
}
