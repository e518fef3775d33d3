/**
 * What the rest of the project asks the client to send, in our own words. The client turns
 * it into the exact JSON of reference §1 (see message-body.ts); nothing else builds bodies.
 */
export interface TextParameter {
  text: string;
  /** Set for NAMED templates: Meta's `parameter_name`. */
  name?: string;
}

/** A media header by link (Meta fetches it for each message) or by the ID of an upload to the sending number. */
export type MediaParameter = { type: 'image' | 'video' | 'document' | 'gif'; filename?: string } & ({ link: string } | { id: string });

export interface LocationParameter {
  type: 'location';
  /** Decimal degrees, written as Meta's location-template examples write them: strings. */
  latitude: string;
  longitude: string;
  name?: string;
  address?: string;
}

/** A product card's or single-product message's header: a product of the business's catalog. */
export interface ProductParameter {
  type: 'product';
  productRetailerId: string;
  catalogId?: string;
}

export type HeaderParameter = { type: 'text'; text: string; name?: string } | MediaParameter | LocationParameter | ProductParameter;

/**
 * A button's value other than a URL's end: a quick reply's payload, a coupon code, a Flow's
 * token and data, a catalog's or multi-product message's products. Buttons without a value
 * (a phone number, a call, a single product) are not sent.
 */
export type ButtonParameter =
  | { subType: 'url'; text: string; name?: string }
  | { subType: 'quick_reply'; payload: string }
  | { subType: 'copy_code'; couponCode: string }
  | { subType: 'flow'; flowToken?: string; flowActionData?: Record<string, unknown> }
  | { subType: 'catalog'; thumbnailProductRetailerId?: string }
  | { subType: 'mpm'; thumbnailProductRetailerId: string; sections: ProductSection[] };

export interface ProductSection {
  title: string;
  productRetailerIds: string[];
}

export type ButtonValue = ButtonParameter & { index: number };

/** One card of a carousel, as its `card_index` and its own header, body and buttons. */
export interface CardValue {
  index: number;
  header?: HeaderParameter;
  body: TextParameter[];
  buttons: ButtonValue[];
}

export interface UrlButtonParameter {
  index: number;
  text: string;
  name?: string;
}

interface Envelope {
  /** Recipient in E.164 with the leading `+` (without it Meta prepends the sender's country code). */
  to: string;
  /** Echoed by Meta in status webhooks; we put campaign and row here. */
  callbackData?: string;
}

export interface TextMessage extends Envelope {
  kind: 'text';
  body: string;
  previewUrl?: boolean;
}

export interface TemplateMessage extends Envelope {
  kind: 'template';
  /** Posted to the Marketing Messages API (`/marketing_messages`, same body) instead of `/messages`. */
  endpoint?: 'marketing-messages';
  name: string;
  language: string;
  header?: HeaderParameter;
  body: TextParameter[];
  urlButtons?: UrlButtonParameter[];
  /** Buttons other than URL buttons that carry a value. */
  buttons?: ButtonValue[];
  /** A limited-time offer's end, epoch milliseconds. */
  offerExpiresAtMs?: number;
  cards?: CardValue[];
}

export type OutboundMessage = TextMessage | TemplateMessage;
