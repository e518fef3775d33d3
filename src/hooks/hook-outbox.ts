import type { CampaignEvent } from '../events/campaign-event.js';
import type { DeadHookEvent } from './hook.js';

/** An event waiting in a hook's outbox. */
export interface QueuedHookEvent {
  /** Its outbox entry (not the event's ID: an event redelivered gets a new entry, and keeps its ID). */
  entryId: string;
  /** Undefined for an entry that holds no readable event (written by hand): acknowledged with its batch, never sent. */
  event: CampaignEvent | undefined;
  /** When it was queued (ms): its retries' window starts here. */
  queuedAt: number;
}

/**
 * One hook's durable outbox, as its delivery sees it (src/redis/hooks/redis-hook-outbox.ts):
 * events stay in it until their receiver acknowledged them or they are moved to the dead letters.
 */
export interface HookOutbox {
  /** The oldest `limit` waiting events, in order. */
  oldest(limit: number): Promise<QueuedHookEvent[]>;
  /** A batch the receiver acknowledged: out of the outbox, counted delivered, its lag recorded. */
  acknowledge(entryIds: readonly string[], lagSeconds: number): Promise<number>;
  /** Events about to be sent again after a failed attempt, counted retried. */
  countRetried(events: number): Promise<void>;
  /** A batch given up on: to the dead letters, with when and why, counted dead. */
  bury(entryIds: readonly string[], at: number, reason: string): Promise<number>;
}

/** The dead letters, as `hooks failed` and `hooks redeliver` see them. */
export interface HookDeadLetters {
  list(limit: number): Promise<DeadHookEvent[]>;
  /** Every dead letter back into the outbox (queued again, with a new retry window): how many. */
  redeliver(at: number): Promise<number>;
}
