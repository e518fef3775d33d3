/**
 * One value a send of a template must or may carry, named as operators map it
 * (`--param SLOT=COLUMN`): `body.1`, `body.first_name`, `header.image`, `header.location`,
 * `button.0.url`, `button.1.coupon_code`, `button.2.payload`, `button.0.flow_token`,
 * `lto.expiration`, `card.0.header.image`, `card.0.body.1`, `card.0.button.0.payload`.
 * Buttons and cards are counted from 0, as Meta's `index` and `card_index` are.
 */
export type SlotKind =
  /** A text placeholder of a header or body. */
  | 'text'
  /** The variable end of a URL button's address. */
  | 'url'
  /** An http(s) link to the media of a header (the top one or a card's). */
  | 'media'
  /** A document header's file name. */
  | 'filename'
  /** A location header's place: `latitude,longitude`. */
  | 'location'
  | 'location_name'
  | 'location_address'
  | 'coupon_code'
  /** A quick-reply button's payload, echoed back when the recipient taps it. */
  | 'payload'
  | 'flow_token'
  /** A Flow's first screen data: a JSON object. */
  | 'flow_action_data'
  /** When a limited-time offer ends: an ISO 8601 instant with offset, or epoch milliseconds. */
  | 'expiration'
  /** A product's retailer ID (`product_retailer_id`) in the business's catalog. */
  | 'product'
  /** The catalog a product header's product is in (`catalog_id`), one for the whole message. */
  | 'catalog_id'
  /** The product whose image heads a catalog or multi-product message. */
  | 'thumbnail'
  /** A multi-product message's sections: `Title: id1, id2; Other title: id3`. */
  | 'sections';

export type MediaKind = 'image' | 'video' | 'document' | 'gif';

/** A button's `sub_type` in a send, by the template button's `type`. */
export type ButtonSubType = 'url' | 'quick_reply' | 'copy_code' | 'flow' | 'catalog' | 'mpm' | 'spm';

export interface SlotPlace {
  /** A carousel card's `card_index`; absent for the message's own components. */
  card?: number | undefined;
  component: 'header' | 'body' | 'button' | 'limited_time_offer';
  button?: { index: number; subType: ButtonSubType } | undefined;
  /** A text slot's placeholder name (`1`, `first_name`). */
  variable?: string | undefined;
  /** A media slot's kind. */
  media?: MediaKind | undefined;
}

export interface TemplateSlot extends SlotPlace {
  name: string;
  kind: SlotKind;
  /** A send without it is malformed at Meta; an optional one is left out when unmapped. */
  required: boolean;
  /**
   * Filled with another slot's value, never mapped on its own: an authentication code goes
   * in the body and again in the button ("this value must appear twice").
   */
  sameAs?: string | undefined;
  /** A limit on the value's length tighter than its kind's: a coupon code in an offer, an authentication code. */
  maxLength?: number | undefined;
  /** What the value is, for an operator choosing a column. */
  about: string;
}

/** What kind of template it is, by the component or button that decides how it is sent. */
export const TEMPLATE_KINDS = [
  'standard',
  'authentication',
  'coupon_code',
  'limited_time_offer',
  'media_carousel',
  'product_carousel',
  'catalog',
  'multi_product',
  'single_product',
  'flow',
] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];
