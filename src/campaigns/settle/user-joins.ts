import type { InboundUpdate, PreferenceUpdate, StatusUpdate } from '../ledger.js';

/**
 * Recipients are a phone and a business-scoped user ID (BSUID, `user_id`, e.g.
 * `US.13491208655302741918`). Meta gives the BSUID on every webhook, the phone not always: a
 * user with a username may write, reply or stop marketing with `user_id` only. The ledger keys
 * everything by phone (rows, opt-outs, service windows), so a user_id-only event is joined to
 * its phone through the link the portfolio learnt from earlier webhooks that carried both
 * (statuses of sends to a phone always do). An event whose user ID has no link yet is kept
 * and applied when the link is learnt: never dropped.
 */

/** A status as the webhook gave it, with who it went to: kept to learn links, never to find the row (wamid and callback data do). */
export interface StatusEvent extends StatusUpdate {
  /** `recipient_id` (or `contacts[].wa_id`): the phone the message went to, digits. */
  recipientId?: string;
  /** `recipient_user_id` (or `contacts[].user_id`): the recipient's business-scoped user ID; never on `failed`. */
  userId?: string;
}

/** A user's message as the webhook gave it: a phone (`waId`), a user ID, or both (never neither). */
export type InboundEvent = Omit<InboundUpdate, 'waId'> & { waId?: string; userId?: string };

/** A `user_preferences` event as the webhook gave it: a phone, a user ID, or both. */
export type PreferenceEvent = Omit<PreferenceUpdate, 'waId'> & { waId?: string; userId?: string };

/**
 * A `system` message `user_changed_user_id`: the user's ID changed from `previous` to `userId`
 * (`waId` when Meta gives the phone; `previous` when it gives the old ID: at least one of them).
 */
export interface UserIdChange {
  phoneNumberId: string;
  previous?: string;
  userId: string;
  waId?: string;
  at: number;
}

/** A user ID and the phone it belongs to, as a webhook carried both, on a number (its portfolio keeps the link). */
export interface UserLink {
  phoneNumberId: string;
  userId: string;
  waId: string;
  /** Meta's timestamp of the event that carried it (ms): the newest link of a user ID wins. */
  at: number;
}

/** An event kept until its user ID's phone is known. */
export type PendingUserEvent = { kind: 'inbound'; event: InboundEvent } | { kind: 'preference'; event: PreferenceEvent };

/** Pending events read for these user IDs; `done(userIds)` removes those users' events once they are applied. */
export interface ReleasedEvents {
  events: PendingUserEvent[];
  done(userIds: ReadonlySet<string>): Promise<void>;
}

/** The user ID ↔ phone links of each number's portfolio (src/redis/webhooks/redis-user-links.ts keeps them in Redis). */
export interface UserLinkStore {
  /** Records links, each in its number's portfolio; a newer link of a user ID replaces an older one. */
  learn(links: readonly UserLink[]): Promise<void>;
  /** `user_changed_user_id`: the new ID gets the old one's phone (or the one the message carried). */
  rename(changes: readonly UserIdChange[]): Promise<void>;
  /** The phone (digits) of each user ID in the number's portfolio, undefined where no link is known. */
  phonesOf(phoneNumberId: string, userIds: readonly string[]): Promise<(string | undefined)[]>;
  /** The user ID of each phone in the number's portfolio (the newest link), undefined where none is known. */
  userIdsOf(phoneNumberId: string, waIds: readonly string[]): Promise<(string | undefined)[]>;
  /** Keeps events whose user ID has no link yet. */
  park(events: readonly PendingUserEvent[]): Promise<void>;
  /** Parked events of these numbers' user IDs, to apply now that the links are known. */
  release(keys: readonly { phoneNumberId: string; userId: string }[]): Promise<ReleasedEvents>;
}

/** The links a batch teaches: statuses (not `failed`: it has no contacts), messages and preferences that carry both. */
export function linksOf(
  statuses: readonly StatusEvent[],
  inbound: readonly InboundEvent[],
  preferences: readonly PreferenceEvent[],
  changes: readonly UserIdChange[],
): UserLink[] {
  const links: UserLink[] = [];
  const add = (phoneNumberId: string, userId: string | undefined, waId: string | undefined, at: number) => {
    if (userId !== undefined && userId !== '' && waId !== undefined && waId !== '') links.push({ phoneNumberId, userId, waId, at });
  };
  for (const s of statuses) if (s.kind !== 'failed') add(s.phoneNumberId, s.userId, s.recipientId, s.at);
  for (const m of inbound) add(m.phoneNumberId, m.userId, m.waId, m.at);
  for (const p of preferences) add(p.phoneNumberId, p.userId, p.waId, p.at);
  for (const c of changes) add(c.phoneNumberId, c.userId, c.waId, c.at);
  return links;
}

/** What the joins give the ledger: every event with its phone; the rest parked. */
export interface JoinedEvents {
  inbound: InboundUpdate[];
  preferences: PreferenceUpdate[];
  /** User_id-only events whose phone is not known yet: parked. */
  unlinked: number;
  /** Events parked earlier whose link is known now: in `inbound` / `preferences`. */
  linked: number;
  /** Call once the ledger applied them: removes the released events from the pending store. */
  done(): Promise<void>;
}

/**
 * Joins a batch's messages and preferences to phones: learns the batch's links first (so an
 * event and the status that links its user come together), resolves events by
 * their user ID's link first, then by the phone they carried, parks the ones still unknown,
 * and adds the parked events the new links release.
 */
export async function joinUsers(
  store: UserLinkStore,
  batch: {
    statuses: readonly StatusEvent[];
    inbound: readonly InboundEvent[];
    preferences: readonly PreferenceEvent[];
    userIdChanges: readonly UserIdChange[];
  },
): Promise<JoinedEvents> {
  const links = linksOf(batch.statuses, batch.inbound, batch.preferences, batch.userIdChanges);
  if (links.length > 0) await store.learn(links);
  if (batch.userIdChanges.length > 0) await store.rename(batch.userIdChanges);
  const events: PendingUserEvent[] = [
    ...batch.inbound.map((event) => ({ kind: 'inbound' as const, event })),
    ...batch.preferences.map((event) => ({ kind: 'preference' as const, event })),
  ];
  const { joined, parked } = await resolve(store, events);
  if (parked.length > 0) await store.park(parked);
  const keys = [
    ...links.map((l) => ({ phoneNumberId: l.phoneNumberId, userId: l.userId })),
    ...batch.userIdChanges.flatMap((c) => [
      ...(c.previous === undefined ? [] : [{ phoneNumberId: c.phoneNumberId, userId: c.previous }]),
      { phoneNumberId: c.phoneNumberId, userId: c.userId },
    ]),
    // Parked just now: another consumer may have learnt their link since they were looked up.
    ...parked.map(({ event }) => ({ phoneNumberId: event.phoneNumberId, userId: event.userId ?? '' })),
  ];
  const released = keys.length > 0 ? await store.release(keys) : { events: [], done: () => Promise.resolve() };
  const again = await resolve(store, released.events);
  // A user with an event still without a phone keeps all theirs parked (applying the others again later changes nothing).
  const waiting = new Set(again.parked.map(({ event }) => event.userId ?? ''));
  const applied = new Set(released.events.map(({ event }) => event.userId ?? '').filter((id) => !waiting.has(id)));
  const unlinked = parked.filter(({ event }) => waiting.has(event.userId ?? '')).length;
  const inbound: InboundUpdate[] = [];
  const preferences: PreferenceUpdate[] = [];
  for (const item of [...again.joined, ...joined]) {
    if (item.kind === 'inbound') inbound.push(item.event);
    else preferences.push(item.event);
  }
  return {
    inbound,
    preferences,
    unlinked,
    linked: again.joined.length - (parked.length - unlinked),
    done: () => released.done(applied),
  };
}

type Joined = { kind: 'inbound'; event: InboundUpdate } | { kind: 'preference'; event: PreferenceUpdate };

/** Each event with its phone: its user ID's link when known, else the phone it carried. */
async function resolve(
  store: UserLinkStore,
  events: readonly PendingUserEvent[],
): Promise<{ joined: Joined[]; parked: PendingUserEvent[] }> {
  const byNumber = new Map<string, string[]>();
  for (const { event } of events) {
    if (event.userId === undefined || event.userId === '') continue;
    const ids = byNumber.get(event.phoneNumberId) ?? [];
    ids.push(event.userId);
    byNumber.set(event.phoneNumberId, ids);
  }
  const phones = new Map<string, string>();
  for (const [number, ids] of byNumber) {
    const found = await store.phonesOf(number, ids);
    ids.forEach((id, i) => {
      const phone = found[i];
      if (phone !== undefined) phones.set(`${number} ${id}`, phone);
    });
  }
  const joined: Joined[] = [];
  const parked: PendingUserEvent[] = [];
  for (const item of events) {
    const { event } = item;
    // The user ID first (its newest link), then the phone the event carried.
    const linked = event.userId === undefined ? undefined : phones.get(`${event.phoneNumberId} ${event.userId}`);
    const waId = linked ?? (event.waId !== undefined && event.waId !== '' ? event.waId : undefined);
    if (waId === undefined) parked.push(item);
    else if (item.kind === 'inbound') joined.push({ kind: 'inbound', event: { ...item.event, waId } });
    else joined.push({ kind: 'preference', event: { ...item.event, waId } });
  }
  return { joined, parked };
}
