/**
 * Who a webhook item is about: a phone (`wa_id`), a business-scoped user ID (`user_id`), or both.
 * The one reader of the phone ↔ user ID link for every kind of item (statuses, users' messages,
 * `user_preferences`, `system` messages), because Meta names the user in the item only partly
 * and puts the rest in its change's `value.contacts[]`, beside the items, never inside one
 * (Meta's business-scoped user ID page and status webhook reference):
 * - a status of a send to a phone has `recipient_id`; its user ID is in the contact whose
 *   `wa_id` is that phone. `recipient_user_id` is there only for a send to a user ID;
 * - a user's message has `from` and/or `from_user_id`; a username user may come without a phone.
 * One change may carry several users, so an item is joined to its contact by phone, else by
 * user ID; the only contact is taken only for an item that names neither.
 */
export interface WebhookUser {
  waId?: string;
  userId?: string;
}

export function userOf(
  phone: string | undefined,
  userId: string | undefined,
  contacts: readonly Record<string, unknown>[],
): WebhookUser | undefined {
  const waId = digits(phone);
  const contact =
    waId !== undefined
      ? contacts.find((c) => digits(text(c.wa_id)) === waId)
      : userId !== undefined
        ? contacts.find((c) => text(c.user_id) === userId)
        : contacts.length === 1
          ? contacts[0]
          : undefined;
  const id = userId ?? text(contact?.user_id);
  const phoneOf = waId ?? digits(text(contact?.wa_id));
  if (phoneOf === undefined && id === undefined) return undefined;
  return { ...(phoneOf === undefined ? {} : { waId: phoneOf }), ...(id === undefined ? {} : { userId: id }) };
}

/** A phone as Meta writes `wa_id` (digits); a leading `+` some senders add is dropped. */
function digits(phone: string | undefined): string | undefined {
  return phone === undefined ? undefined : phone.replace(/^\+/, '');
}

/** A non-empty string, else undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
