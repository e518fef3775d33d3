import { GraphRejection } from './graph-error.js';
import { INVALID } from './json-checks.js';
import { checkCarousel } from './kinds/carousel-check.js';
import { checkOffer } from './kinds/offer-check.js';
import { checkOtp } from './kinds/otp-check.js';
import { checkButtons } from './kinds/button-check.js';
import { checkHeaderAndBody } from './kinds/part-check.js';
import { readSentComponents } from './kinds/sent-components.js';
import type { TemplateShape } from './kinds/template-shape.js';
import type { MediaIds } from './media-object.js';

/**
 * The components of a template send against what its kind requires, as Meta's page for each
 * kind documents it: coupon code, limited-time offer, media-card and product-card carousels,
 * catalog, multi-product, single-product, authentication, Flow, quick replies, and location,
 * document and GIF headers (kinds/*). The first problem found is thrown as Meta's error.
 */
export const MAX_RENDERED_BODY = 1024;

/** "Maximum 20 characters" (coupon-templates); "Maximum 15 characters" for an offer code (limited-time-offer-templates). */
export const MAX_COUPON_CODE = 20;
export const MAX_OFFER_COUPON_CODE = 15;

export type SendEndpointName = 'messages' | 'marketing_messages';

export interface KindContext {
  media?: MediaIds | undefined;
  /** The endpoint the send came to; /messages unless said. */
  endpoint?: SendEndpointName | undefined;
}

export function checkTemplateComponents(shape: TemplateShape, components: unknown[], context: KindContext): void {
  const sent = readSentComponents(components);
  const header = shape.part.header;
  if (header.kind === 'media' && header.media === 'gif' && context.endpoint !== 'marketing_messages') {
    throw gifOnMessages();
  }
  const base = {
    named: shape.named,
    media: context.media,
    couponLimit: shape.offer === undefined ? MAX_COUPON_CODE : MAX_OFFER_COUPON_CODE,
  };
  // In the order of Meta's send examples: header, body, offer, buttons, then the carousel's cards.
  const own = { ...base, prefix: '', bodyLimit: MAX_RENDERED_BODY };
  const body = checkHeaderAndBody(shape.part, sent, own);
  checkOffer(shape.offer, sent.offer);
  checkOtp(shape.otp, body, checkButtons(shape.part.buttons, sent.buttons, own));
  checkCarousel(shape.carousel, sent.carousel, base);
}

/**
 * "Gifs are only available for Marketing Messages API for WhatsApp" (templates/components). No
 * page says how /messages refuses one, and /messages has no `gif` parameter type at all (Meta's
 * OpenAPI): the sandbox answers 100, Graph's "Invalid parameter" for a request using a parameter
 * its endpoint does not support, naming the endpoint that takes it.
 */
function gifOnMessages(): GraphRejection {
  return new GraphRejection(
    INVALID,
    'header: a template with a GIF header is sent only through the Marketing Messages API ' +
      '(POST /{phone-number-id}/marketing_messages), not /messages',
  );
}
