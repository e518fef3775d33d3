import type { ButtonValue, HeaderParameter, OutboundMessage, TemplateMessage, TextParameter } from './outbound-message.js';

/** The path segment after the phone-number ID: the Marketing Messages API takes the same body as `/messages`. */
export function messagePath(message: OutboundMessage): 'messages' | 'marketing_messages' {
  return message.kind === 'template' && message.endpoint === 'marketing-messages' ? 'marketing_messages' : 'messages';
}

/**
 * The request body of `POST /{version}/{phone-number-id}/messages`, as reference §1.2–1.4 shows it,
 * and of `/marketing_messages`, the same but for `biz_opaque_callback_data`: Meta's schema for
 * that path (MarketingMessageRequestPayload) does not allow it and its send page does not list
 * it, so a Marketing Messages send carries none (its row is found by the answer's message ID;
 * docs/delivery-guarantees.md says what an in-doubt one does).
 */
export function messageBody(message: OutboundMessage): Record<string, unknown> {
  const body: Record<string, unknown> = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.to,
    type: message.kind,
  };
  if (message.callbackData !== undefined && messagePath(message) === 'messages') body.biz_opaque_callback_data = message.callbackData;
  if (message.kind === 'text') {
    body.text = { preview_url: message.previewUrl ?? false, body: message.body };
  } else {
    body.template = templateObject(message);
  }
  return body;
}

function templateObject(message: TemplateMessage): Record<string, unknown> {
  const components: Record<string, unknown>[] = ownComponents(message.header, message.body, mergedButtons(message));
  if (message.offerExpiresAtMs !== undefined) {
    // After the body and before the buttons, as Meta's limited-time-offer example has it.
    const at = components.findIndex((c) => c.type === 'button');
    const offer = {
      type: 'limited_time_offer',
      parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: message.offerExpiresAtMs } }],
    };
    components.splice(at < 0 ? components.length : at, 0, offer);
  }
  if (message.cards !== undefined && message.cards.length > 0) {
    components.push({
      type: 'carousel',
      cards: message.cards.map((card) => ({ card_index: card.index, components: ownComponents(card.header, card.body, card.buttons) })),
    });
  }
  const template: Record<string, unknown> = { name: message.name, language: { code: message.language } };
  // Meta wants `components` only when the template has something to fill in.
  if (components.length > 0) template.components = components;
  return template;
}

/** URL buttons and the other valued buttons, in button order. */
function mergedButtons(message: TemplateMessage): ButtonValue[] {
  const urls: ButtonValue[] = (message.urlButtons ?? []).map((b) => ({ subType: 'url', index: b.index, text: b.text, ...named(b.name) }));
  return [...urls, ...(message.buttons ?? [])].sort((a, b) => a.index - b.index);
}

function named(name: string | undefined): { name?: string } {
  return name === undefined ? {} : { name };
}

function ownComponents(header: HeaderParameter | undefined, body: readonly TextParameter[], buttons: readonly ButtonValue[]) {
  const components: Record<string, unknown>[] = [];
  if (header !== undefined) components.push({ type: 'header', parameters: [headerParameter(header)] });
  if (body.length > 0) components.push({ type: 'body', parameters: body.map(textParameter) });
  for (const button of buttons) {
    components.push({ type: 'button', sub_type: button.subType, index: String(button.index), parameters: [buttonParameter(button)] });
  }
  return components;
}

function textParameter(parameter: TextParameter): Record<string, unknown> {
  return parameter.name === undefined
    ? { type: 'text', text: parameter.text }
    : { type: 'text', parameter_name: parameter.name, text: parameter.text };
}

function headerParameter(header: HeaderParameter): Record<string, unknown> {
  switch (header.type) {
    case 'text':
      return textParameter(header);
    case 'location': {
      const { latitude, longitude, name, address } = header;
      return {
        type: 'location',
        location: { latitude, longitude, ...(name === undefined ? {} : { name }), ...(address === undefined ? {} : { address }) },
      };
    }
    case 'product':
      return {
        type: 'product',
        product: {
          product_retailer_id: header.productRetailerId,
          ...(header.catalogId === undefined ? {} : { catalog_id: header.catalogId }),
        },
      };
    default: {
      const media: Record<string, unknown> = 'id' in header ? { id: header.id } : { link: header.link };
      if (header.filename !== undefined) media.filename = header.filename;
      return { type: header.type, [header.type]: media };
    }
  }
}

function buttonParameter(button: ButtonValue): Record<string, unknown> {
  switch (button.subType) {
    case 'url':
      return textParameter(button);
    case 'quick_reply':
      return { type: 'payload', payload: button.payload };
    case 'copy_code':
      return { type: 'coupon_code', coupon_code: button.couponCode };
    case 'flow': {
      const action: Record<string, unknown> = {};
      if (button.flowToken !== undefined) action.flow_token = button.flowToken;
      if (button.flowActionData !== undefined) action.flow_action_data = button.flowActionData;
      return { type: 'action', action };
    }
    case 'catalog':
      return {
        type: 'action',
        action: button.thumbnailProductRetailerId === undefined ? {} : { thumbnail_product_retailer_id: button.thumbnailProductRetailerId },
      };
    case 'mpm':
      return {
        type: 'action',
        action: {
          thumbnail_product_retailer_id: button.thumbnailProductRetailerId,
          sections: button.sections.map((s) => ({
            title: s.title,
            product_items: s.productRetailerIds.map((id) => ({ product_retailer_id: id })),
          })),
        },
      };
  }
}
