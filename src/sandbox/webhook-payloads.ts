/**
 * The bodies of the sandbox's webhooks, in Meta's shape (reference §3.2 envelope, §3.3
 * statuses, §3.4 inbound messages): one entry for the sandbox's WABA, one `messages` change
 * per business phone number. Serialised once here; the poster signs exactly these bytes.
 */
export const SANDBOX_WABA_ID = '100000000000001';
/** The sandbox has no real numbers to display; every one shows this (also `context.from` of replies). */
export const DISPLAY_PHONE_NUMBER = '15550000000';

export type ChangeValue = Record<string, unknown>;

/**
 * `changes` maps each phone-number ID to the value fields of its change (statuses, or contacts +
 * messages, or a system message, or user_preferences, or an account's errors).
 */
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

/** A recipient as a status change's `contacts[]` names them (Meta's business-scoped user ID page). */
export interface StatusContact {
  /** Absent when the phone is not to be shown (a send to a user ID only). */
  wa_id?: string;
  user_id: string;
}

/**
 * Statuses grouped by number, in the order given: one POST's worth. Each number's change
 * carries its recipients once in `value.contacts[]`, beside `value.statuses[]`, where Meta
 * puts them; a client joins a status to its contact by `recipient_id` = `wa_id`.
 */
export function statusesPayload(
  batch: readonly { phoneNumberId: string; item: Record<string, unknown>; contact?: StatusContact }[],
): string {
  const byNumber = new Map<string, { statuses: Record<string, unknown>[]; contacts: Map<string, StatusContact> }>();
  for (const { phoneNumberId, item, contact } of batch) {
    let change = byNumber.get(phoneNumberId);
    if (change === undefined) {
      change = { statuses: [], contacts: new Map() };
      byNumber.set(phoneNumberId, change);
    }
    change.statuses.push(item);
    if (contact !== undefined) change.contacts.set(contact.wa_id ?? contact.user_id, contact);
  }
  return webhookPayload(
    new Map(
      [...byNumber].map(([id, { statuses, contacts }]) => [
        id,
        contacts.size === 0 ? { statuses } : { contacts: [...contacts.values()], statuses },
      ]),
    ),
  );
}

/**
 * What a user sent (reference §3.4): a text, a tap on a template's quick-reply button, or the
 * answer of a WhatsApp Flow a template's Flow button opened (its data as a JSON string).
 */
export type InboundContent =
  { kind: 'text'; body: string } | { kind: 'button'; payload: string; text: string } | { kind: 'flow'; responseJson: string };

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
  /** The wamid of the business message this replies to (required for a button tap and a Flow's answer). */
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
    type: content.kind === 'flow' ? 'interactive' : content.kind,
  };
  // In the order Meta's examples print them: type, context, then the content.
  if (message.contextId !== undefined) item['context'] = { from: DISPLAY_PHONE_NUMBER, id: message.contextId };
  Object.assign(item, contentFields(content));
  const value = { contacts: [contactOf(message)], messages: [item] };
  return webhookPayload(new Map([[message.phoneNumberId, value]]));
}

/**
 * The message's content, under its type's key. A Flow's answer is an `interactive` message of
 * type `nfm_reply`, as Meta's flows/guides/receiveflowresponse prints it: `name` "flow", `body`
 * "Sent" (what the user's chat shows), and the Flow's data as a JSON string.
 */
function contentFields(content: InboundContent): Record<string, unknown> {
  switch (content.kind) {
    case 'text':
      return { text: { body: content.body } };
    case 'button':
      return { button: { payload: content.payload, text: content.text } };
    case 'flow':
      return { interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: content.responseJson } } };
  }
}

/** The sender as `contacts[]` names them since 2026: `user_id` always, `wa_id` unless a username hides it. */
function contactOf(user: { waId: string; userId: string; name: string; usernameUser?: boolean }): Record<string, unknown> {
  return { profile: { name: user.name }, ...(user.usernameUser === true ? {} : { wa_id: user.waId }), user_id: user.userId };
}

/**
 * A marketing stop or resume, or an In-App Signup (field `user_preferences`, reference §3.5
 * and cloud-api-2026.md §5; its timestamp is a number): a user who opened the business's
 * signup link (`wa.me/<number>/signup/<signup-id>`) and subscribed.
 */
export interface PreferenceChange {
  phoneNumberId: string;
  waId: string;
  userId: string;
  name: string;
  usernameUser?: boolean;
  value: 'stop' | 'resume' | 'signup';
  /** The signup entity the user subscribed through (`signup_id`); signups only. */
  signupId?: string;
  /** ms since the epoch. */
  at: number;
}

/**
 * Meta's wording of `detail` for a stop and a resume (webhooks/reference/user_preferences).
 * Its pages show no signup example: that wording is the sandbox's.
 */
const PREFERENCE_DETAIL: Readonly<Record<PreferenceChange['value'], string>> = {
  stop: 'User requested to stop marketing messages',
  resume: 'User requested to resume marketing messages',
  signup: 'User signed up for marketing messages',
};

export function userPreferencesPayload(change: PreferenceChange): string {
  const phone = change.usernameUser === true ? {} : { wa_id: change.waId };
  const item = {
    ...phone,
    user_id: change.userId,
    detail: PREFERENCE_DETAIL[change.value],
    category: 'marketing_messages',
    value: change.value,
    ...(change.signupId === undefined ? {} : { signup_id: change.signupId }),
    timestamp: Math.floor(change.at / 1000),
  };
  return webhookPayload(new Map([[change.phoneNumberId, { contacts: [contactOf(change)], user_preferences: [item] }]]), 'user_preferences');
}

/** Meta issued a user a new business-scoped user ID (`POST /_sandbox/user-id-change`). */
export interface UserIdChange {
  phoneNumberId: string;
  /** Profile name, as the system message's `body` names the user. */
  name: string;
  previousUserId: string;
  userId: string;
  /** The system message's ID (a received wamid). */
  id: string;
  /** ms since the epoch. */
  at: number;
}

/**
 * Meta's `user_changed_user_id` system message (webhooks/reference/messages/system, updated
 * 2026-08-11, and the changelog entry of that day): the new ID in `system.user_id`, the old one
 * in `system.previous_user_id`, the body worded as the business-scoped user ID page words it.
 * "No phone number is included" (no `from`, no `system.wa_id`), and, like every system
 * message, no `contacts`. The sandbox has no parent IDs, so no `parent_user_id` either.
 */
export function userIdChangePayload(change: UserIdChange): string {
  const item = {
    id: change.id,
    timestamp: String(Math.floor(change.at / 1000)),
    type: 'system',
    system: {
      body: `User ${change.name} changed from ${change.previousUserId} to ${change.userId}`,
      user_id: change.userId,
      previous_user_id: change.previousUserId,
      type: 'user_changed_user_id',
    },
  };
  return webhookPayload(new Map([[change.phoneNumberId, { messages: [item] }]]));
}
