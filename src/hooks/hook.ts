import type { CampaignEvent, EventType } from '../events/campaign-event.js';

/**
 * An outbound hook: a URL of the sender's own systems that `serve` POSTs the chosen events to,
 * in signed batches (docs/events.md). Its secret is not part of it: it is shown once, when the
 * hook is added, and kept only where the delivery reads it.
 */
export interface HookDefinition {
  name: string;
  url: string;
  /** The events it receives, in EVENT_TYPES' order. */
  events: EventType[];
  /** Only this campaign's events, when set. */
  campaignId?: string;
  /** When it was added (ms). */
  createdAt: number;
}

/** What became of a hook's events so far (counters shared by every `serve` replica and the CLI). */
export interface HookFigures {
  /** Events put in its outbox (again, when redelivered). */
  queued: number;
  /** Events its receiver acknowledged with a 2xx. */
  delivered: number;
  /** Events sent again after a failed attempt (one per event per retry). */
  retried: number;
  /** Events moved to the dead letters after HOOK_RETRY_HOURS of failures. */
  dead: number;
  /** Events waiting now. */
  waiting: number;
  /** Seconds, of the last delivered batch's oldest event; undefined before any. */
  lagSeconds?: number;
}

export interface HookView extends HookDefinition {
  figures: HookFigures;
}

/** An event given up on: `hooks failed NAME` shows them, `hooks redeliver NAME` queues them again. */
export interface DeadHookEvent {
  event: CampaignEvent;
  /** When it was given up on (ms). */
  failedAt: number;
  /** The last attempt's answer (HTTP 500, ECONNREFUSED, …). */
  reason: string;
}
