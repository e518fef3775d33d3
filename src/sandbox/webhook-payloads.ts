/**
 * The bodies of the sandbox's webhooks, in Meta's shape (reference §3.2 envelope, §3.3
 * statuses, §3.4 inbound messages): one entry for the sandbox's WABA, one `messages` change
 * per business phone number. Serialised once here; the poster signs exactly these bytes.
 */
export const SANDBOX_WABA_ID = '100000000000001';
/** The sandbox has no real numbers to display; every one shows this (also `context.from` of replies). */
export const DISPLAY_PHONE_NUMBER = '15550000000';

export type ChangeValue = Record<string, unknown>;

/** `changes` maps each phone-number ID to the value fields of its change (statuses, or contacts + messages). */
export function webhookPayload(changes: ReadonlyMap<string, ChangeValue>): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: SANDBOX_WABA_ID,
        changes: [...changes].map(([phoneNumberId, fields]) => ({
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: DISPLAY_PHONE_NUMBER, phone_number_id: phoneNumberId },
            ...fields,
          },
        })),
      },
    ],
  });
}

/** Statuses grouped by number, in the order given: one POST's worth. */
export function statusesPayload(batch: readonly { phoneNumberId: string; item: Record<string, unknown> }[]): string {
  const byNumber = new Map<string, Record<string, unknown>[]>();
  for (const { phoneNumberId, item } of batch) {
    const items = byNumber.get(phoneNumberId);
    if (items === undefined) byNumber.set(phoneNumberId, [item]);
    else items.push(item);
  }
  return webhookPayload(new Map([...byNumber].map(([id, statuses]) => [id, { statuses }])));
}

/** What a user sent (reference §3.4): a text, or a tap on a template's quick-reply button. */
export type InboundContent = { kind: 'text'; body: string } | { kind: 'button'; payload: string; text: string };

export interface InboundMessage {
  phoneNumberId: string;
  /** The user's number, digits only (wa_id). */
  waId: string;
  /** Profile name shown in contacts[]. */
  name: string;
  id: string;
  /** ms since the epoch. */
  at: number;
  content: InboundContent;
  /** The wamid of the business message this replies to (required for a button tap). */
  contextId?: string;
}

export function inboundPayload(message: InboundMessage): string {
  const { content } = message;
  const item: Record<string, unknown> = {
    from: message.waId,
    id: message.id,
    timestamp: String(Math.floor(message.at / 1000)),
    type: content.kind,
  };
  if (message.contextId !== undefined) item['context'] = { from: DISPLAY_PHONE_NUMBER, id: message.contextId };
  if (content.kind === 'text') item['text'] = { body: content.body };
  else item['button'] = { payload: content.payload, text: content.text };
  const value = { contacts: [{ profile: { name: message.name }, wa_id: message.waId }], messages: [item] };
  return webhookPayload(new Map([[message.phoneNumberId, value]]));
}
