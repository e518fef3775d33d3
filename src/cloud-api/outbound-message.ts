/**
 * What the rest of the project asks the client to send, in our own words. The client turns
 * it into the exact JSON of reference §1 (see message-body.ts); nothing else builds bodies.
 */
export interface TextParameter {
  text: string;
  /** Set for NAMED templates: Meta's `parameter_name`. */
  name?: string;
}

export type HeaderParameter = { type: 'text'; text: string; name?: string } | { type: 'image' | 'video' | 'document'; link: string };

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
}

export type OutboundMessage = TextMessage | TemplateMessage;
