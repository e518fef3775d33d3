/**
 * The bodies of the sandbox's webhooks, in Meta's shape (reference §3.2 envelope, §3.3
 * statuses, §3.4 inbound messages): one entry for the sandbox's WABA, one `messages` change
 * per business phone number. Serialised once here; the poster signs exactly these bytes.
 */
export const SANDBOX_WABA_ID = '100000000000001';
/** The sandbox has no real numbers to display; every one shows this (also `context.from` of replies). */
export const DISPLAY_PHONE_NUMBER = '15550000000';

export type ChangeValue = Record<string, unknown>;

/** `changes` maps each phone-number ID to the value fields of its change (statuses, or contacts + messages, or user_preferences). */
export function webhookPayload(changes: ReadonlyMap<string, ChangeValue>, field = 'messages'): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: SANDBOX_WABA_ID,
        changes: [...changes].map(([phoneNumberId, fields]) => ({
          field,
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
  /** The user's business-scoped user ID (`from_user_id`, `contacts[].user_id`). */
  userId: string;
  /** A username user: the webhook carries the user ID only, no `from` or `wa_id`. */
  usernameUser?: boolean;
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
  const phone = message.usernameUser === true ? {} : { from: message.waId };
  const item: Record<string, unknown> = {
    ...phone,
    from_user_id: message.userId,
    id: message.id,
    timestamp: String(Math.floor(message.at / 1000)),
    type: content.kind,
  };
  if (message.contextId !== undefined) item['context'] = { from: DISPLAY_PHONE_NUMBER, id: message.contextId };
  if (content.kind === 'text') item['text'] = { body: content.body };
  else item['button'] = { payload: content.payload, text: content.text };
  const value = { contacts: [contactOf(message)], messages: [item] };
  return webhookPayload(new Map([[message.phoneNumberId, value]]));
}

/** The sender as `contacts[]` names them since 2026: `user_id` always, `wa_id` unless a username hides it. */
function contactOf(user: { waId: string; userId: string; name: string; usernameUser?: boolean }): Record<string, unknown> {
  return { profile: { name: user.name }, ...(user.usernameUser === true ? {} : { wa_id: user.waId }), user_id: user.userId };
}

/** A marketing stop or resume (field `user_preferences`, reference §3.5; its timestamp is a number). */
export interface PreferenceChange {
  phoneNumberId: string;
  waId: string;
  userId: string;
  name: string;
  usernameUser?: boolean;
  value: 'stop' | 'resume';
  /** ms since the epoch. */
  at: number;
}

export function userPreferencesPayload(change: PreferenceChange): string {
  const phone = change.usernameUser === true ? {} : { wa_id: change.waId };
  const item = {
    ...phone,
    user_id: change.userId,
    detail: `User requested to ${change.value} marketing messages`,
    category: 'marketing_messages',
    value: change.value,
    timestamp: Math.floor(change.at / 1000),
  };
  return webhookPayload(new Map([[change.phoneNumberId, { contacts: [contactOf(change)], user_preferences: [item] }]]), 'user_preferences');
}
