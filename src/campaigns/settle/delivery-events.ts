import type {
  DeliveryLedger,
  InboundUpdate,
  PreferenceUpdate,
  StatusUpdate,
  TemplateInfoUpdate,
  TemplateStatusOutcome,
  TemplateStatusUpdate,
} from '../ledger.js';
import {
  joinUsers,
  type InboundEvent,
  type PreferenceEvent,
  type StatusEvent,
  type UserIdChange,
  type UserLinkStore,
} from './user-joins.js';

/**
 * Settling: what Meta tells after a send (statuses, users' messages, marketing preferences)
 * applied to the ledger. The transport that brings these events (src/webhooks: signature,
 * inbox, parser) hands them here; the rules of each change live in the ledger's scripts.
 */

/** Statuses per ledger call: one script call each, kept short so Redis stays responsive. */
const STATUSES_PER_CALL = 500;

/** What a batch of webhooks asks of the ledger. */
export interface DeliveryEvents {
  statuses: readonly StatusEvent[];
  /** Users' messages and preferences by phone, user ID or both (joined to a phone before the ledger sees them). */
  inbound: readonly InboundEvent[];
  preferences: readonly PreferenceEvent[];
  /** `user_changed_user_id` system messages. */
  userIdChanges?: readonly UserIdChange[];
  /** Template status changes, in the order Meta sent them (a PAUSED then a REINSTATED end reinstated). */
  templates?: readonly TemplateStatusUpdate[];
  /** Template quality scores and categories (kept for the template list and the campaigns page). */
  templateInfo?: readonly TemplateInfoUpdate[];
}

/** Told of each status that found its row, when it was applied (the status lag), and whether it recorded the row's billable pricing. */
export type StatusApplied = (update: StatusUpdate, appliedAt: number, billed: boolean) => void;

export interface Settled {
  /**
   * How many of each: statuses, each status outcome, completed campaigns, inbound, replies, optOutKeywords, preferences;
   * `unlinked`: events with a user ID only whose phone is not known yet (kept until it is); `linked`: such events applied
   * now that their link is known.
   */
  counts: Record<string, number>;
  /**
   * Statuses no row knows yet: the send's answer may not be recorded yet (at 1,000 msg/s Meta's
   * `sent` can come first), or the message is another tool's. The caller keeps them and tries again.
   */
  unmatched: StatusUpdate[];
  /** Per template status change, what it did to the campaigns that send that template. */
  templates: { update: TemplateStatusUpdate; campaigns: TemplateStatusOutcome[] }[];
}

/** A status kept for another try, and since when (ms). */
export interface ParkedStatus {
  update: StatusUpdate;
  parkedAt: number;
}

/**
 * Applies a batch: its statuses (in chunks), then users' messages, then preferences, then
 * template status changes. Messages and preferences are joined to their phone first
 * (user-joins.ts): by the user ID's link, learnt from this batch's statuses and earlier ones,
 * then by the phone they carry; without `links`, one with a user ID only cannot be applied
 * and is counted `unlinked`.
 */
export async function settleDeliveryEvents(
  ledger: DeliveryLedger,
  events: DeliveryEvents,
  onApplied?: StatusApplied,
  links?: UserLinkStore,
): Promise<Settled> {
  const settled = await settleStatuses(ledger, events.statuses, onApplied);
  const { counts } = settled;
  const joined = await joinedEvents(events, links);
  const { inbound, preferences } = joined;
  if (inbound.length > 0) {
    const answered = await ledger.applyInbound(inbound);
    counts.inbound = inbound.length;
    counts.replies = answered.filter((a) => a.answeredRow).length;
    counts.optOutKeywords = inbound.filter((m) => m.optOut).length;
  }
  if (preferences.length > 0) {
    await ledger.applyPreferences(preferences);
    counts.preferences = preferences.length;
  }
  if (joined.unlinked > 0) counts.unlinked = joined.unlinked;
  if (joined.linked > 0) counts.linked = joined.linked;
  if ((events.userIdChanges?.length ?? 0) > 0) counts.userIdChanges = events.userIdChanges?.length ?? 0;
  await joined.done();
  for (const update of events.templates ?? []) {
    const campaigns = await ledger.applyTemplateStatus(update);
    settled.templates.push({ update, campaigns });
    counts.templateStatuses = (counts.templateStatuses ?? 0) + 1;
    for (const { outcome } of campaigns)
      if (outcome === 'paused' || outcome === 'resumed') counts[`template_${outcome}`] = (counts[`template_${outcome}`] ?? 0) + 1;
  }
  if ((events.templateInfo ?? []).length > 0) {
    await ledger.recordTemplateInfo(events.templateInfo ?? []);
    counts.templateInfo = events.templateInfo?.length ?? 0;
  }
  return settled;
}

/** The batch's messages and preferences with their phones (through the links when there are any). */
async function joinedEvents(
  events: DeliveryEvents,
  links: UserLinkStore | undefined,
): Promise<{ inbound: InboundUpdate[]; preferences: PreferenceUpdate[]; unlinked: number; linked: number; done(): Promise<void> }> {
  if (links !== undefined) return joinUsers(links, { ...events, userIdChanges: events.userIdChanges ?? [] });
  const hasPhone = <T extends { waId?: string }>(e: T): e is T & { waId: string } => e.waId !== undefined && e.waId !== '';
  const inbound = events.inbound.filter(hasPhone);
  const preferences = events.preferences.filter(hasPhone);
  const unlinked = events.inbound.length - inbound.length + events.preferences.length - preferences.length;
  return { inbound, preferences, unlinked, linked: 0, done: () => Promise.resolve() };
}

/** Applies statuses to their rows; returns counts by outcome and those whose row is not known yet. */
export async function settleStatuses(
  ledger: DeliveryLedger,
  statuses: readonly StatusUpdate[],
  onApplied?: StatusApplied,
): Promise<Settled> {
  const counts: Record<string, number> = { statuses: statuses.length };
  const unmatched: StatusUpdate[] = [];
  for (let i = 0; i < statuses.length; i += STATUSES_PER_CALL) {
    const chunk = statuses.slice(i, i + STATUSES_PER_CALL);
    const outcomes = await ledger.applyStatuses(chunk);
    const appliedAt = Date.now();
    outcomes.forEach((o, j) => {
      const update = chunk[j];
      if (o.outcome !== 'unmatched' && update !== undefined) onApplied?.(update, appliedAt, o.billed === true);
      counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
      if (o.completedCampaign) counts.completed = (counts.completed ?? 0) + 1;
      if (o.outcome === 'unmatched' && update !== undefined) unmatched.push(update);
    });
  }
  return { counts, unmatched, templates: [] };
}

/**
 * Tries parked statuses again. Done with: those that found their row now, and those parked
 * `parkMs` or longer (by `now`): no send of ours will ever match them, they are another tool's
 * messages (`foreign` counts them).
 */
export async function retryParkedStatuses<T extends ParkedStatus>(
  ledger: DeliveryLedger,
  parked: readonly T[],
  options: { now: number; parkMs: number },
  onApplied?: StatusApplied,
): Promise<{ done: T[]; foreign: number }> {
  const outcomes = await ledger.applyStatuses(parked.map((p) => p.update));
  const appliedAt = Date.now();
  const done: T[] = [];
  let foreign = 0;
  outcomes.forEach((o, i) => {
    const entry = parked[i];
    if (entry === undefined) return;
    if (o.outcome !== 'unmatched') {
      done.push(entry);
      onApplied?.(entry.update, appliedAt, o.billed === true);
    } else if (options.now - entry.parkedAt >= options.parkMs) {
      done.push(entry);
      foreign++;
    }
  });
  return { done, foreign };
}
