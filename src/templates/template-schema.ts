import { z } from 'zod';

/**
 * A message template as Meta's `GET /{waba-id}/message_templates` lists it
 * (reference §5.2). Unknown keys are kept out of the way rather than rejected: Meta adds
 * fields over time and a template list must not stop loading because of one.
 */
const headerComponent = z.object({
  type: z.literal('HEADER'),
  /** PRODUCT: a product card's header (product-card carousels, single-product templates). */
  format: z.enum(['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION', 'GIF', 'PRODUCT']),
  text: z.string().optional(),
});

const bodyComponent = z.object({ type: z.literal('BODY'), text: z.string() });
const footerComponent = z.object({ type: z.literal('FOOTER'), text: z.string() });

/**
 * A button as the list shows it (templates/components): URL, QUICK_REPLY, PHONE_NUMBER,
 * VOICE_CALL, COPY_CODE, OTP (authentication), FLOW, CATALOG, MPM, SPM. Only what a send or a
 * preview needs is read; the rest (flow IDs, examples) is kept as it came.
 */
const templateButton = z
  .object({
    type: z.string(),
    text: z.string().optional(),
    url: z.string().optional(),
    phone_number: z.string().optional(),
    /** OTP buttons: COPY_CODE, ONE_TAP or ZERO_TAP. */
    otp_type: z.string().optional(),
  })
  .loose();

const buttonsComponent = z.object({
  type: z.literal('BUTTONS'),
  buttons: z.array(templateButton),
});

/**
 * A media-card carousel: 2 to 10 cards, each with its own header, optional body and buttons
 * (Meta's templates/marketing-templates/media-card-carousel-templates). A list holding one
 * loads; what a send of one must carry is not modelled here.
 */
/**
 * A carousel: 2 to 10 cards, each with its own header (image or video; a product for a
 * product-card carousel), optional body and buttons (Meta's
 * templates/marketing-templates/media-card-carousel-templates).
 */
const cardComponent = z.discriminatedUnion('type', [headerComponent, bodyComponent, buttonsComponent]);
const carouselComponent = z.object({
  type: z.literal('CAROUSEL'),
  cards: z
    .array(z.object({ components: z.array(cardComponent) }))
    .min(2)
    .max(10),
});

/**
 * A limited-time offer's heading and, when `has_expiration`, the countdown whose end each send
 * gives (…/marketing-templates/limited-time-offer-templates).
 */
const limitedTimeOfferComponent = z.object({
  type: z.literal('LIMITED_TIME_OFFER'),
  limited_time_offer: z.object({ text: z.string().optional(), has_expiration: z.boolean().optional() }).loose().optional(),
});

export const templateComponentSchema = z.discriminatedUnion('type', [
  headerComponent,
  bodyComponent,
  footerComponent,
  buttonsComponent,
  carouselComponent,
  limitedTimeOfferComponent,
]);

export const messageTemplateSchema = z.object({
  id: z.string().optional(),
  name: z.string().min(1),
  language: z.string().min(1),
  status: z.string(),
  category: z.string().optional(),
  /** GREEN, YELLOW, RED or UNKNOWN, when the list was asked for it or a quality webhook said it. */
  quality_score: z.object({ score: z.string() }).loose().optional(),
  parameter_format: z.enum(['POSITIONAL', 'NAMED']).default('POSITIONAL'),
  components: z.array(templateComponentSchema),
});

export const templateListSchema = z.object({
  data: z.array(messageTemplateSchema),
  paging: z
    .object({
      cursors: z.object({ before: z.string().optional(), after: z.string().optional() }).optional(),
      next: z.string().optional(),
    })
    .optional(),
});

export type MessageTemplate = z.infer<typeof messageTemplateSchema>;
export type TemplateComponent = z.infer<typeof templateComponentSchema>;
export type TemplateButton = z.infer<typeof templateButton>;
export type CardComponent = z.infer<typeof cardComponent>;
export type TemplateList = z.infer<typeof templateListSchema>;
