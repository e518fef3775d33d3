import type { HeaderParameter, OutboundMessage, TemplateMessage, TextParameter } from './outbound-message.js';

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
  const components: Record<string, unknown>[] = [];
  if (message.header !== undefined) {
    components.push({ type: 'header', parameters: [headerParameter(message.header)] });
  }
  if (message.body.length > 0) {
    components.push({ type: 'body', parameters: message.body.map(textParameter) });
  }
  for (const button of message.urlButtons ?? []) {
    components.push({
      type: 'button',
      sub_type: 'url',
      index: String(button.index),
      parameters: [textParameter(button)],
    });
  }
  const template: Record<string, unknown> = { name: message.name, language: { code: message.language } };
  // Meta wants `components` only when the template has something to fill in.
  if (components.length > 0) template.components = components;
  return template;
}

function textParameter(parameter: TextParameter): Record<string, unknown> {
  return parameter.name === undefined
    ? { type: 'text', text: parameter.text }
    : { type: 'text', parameter_name: parameter.name, text: parameter.text };
}

function headerParameter(header: HeaderParameter): Record<string, unknown> {
  if (header.type === 'text') return textParameter(header);
  return { type: header.type, [header.type]: { link: header.link } };
}
