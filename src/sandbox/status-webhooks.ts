import type { AcceptedMessage } from './accepted-log.js';
import { webhookError } from './async-failures.js';
import { sandboxUserId } from './user-ids.js';
import { statusPricingFields, type StatusPricingSettings } from './status-pricing.js';
import { statusesPayload, type StatusContact } from './webhook-payloads.js';
import type { WebhookSink, WebhookTarget } from './webhook-poster.js';

/** When each status follows the accepted send, how many messages get read, and how untidy delivery is. */
export interface StatusWebhookSettings extends WebhookTarget, StatusPricingSettings {
  /** ms after the send (defaults: sent 100, delivered 500, read 2000); a `failed` comes when `delivered` would. */
  sentAfterMs?: number;
  deliveredAfterMs?: number;
  readAfterMs?: number;
  /** Share of delivered messages that are also read (default 0.5: not everyone reads, or has read receipts on). */
  readShare?: number;
  /** Statuses due within this many ms go out in one POST (default 50); at most 1,000 per POST, as Meta. */
  batchMs?: number;
  /**
   * Share (0..1, default 0) of statuses delivered twice: the copy goes in a later POST, as
   * Meta's retries and multi-app deliveries do (reference §3.1: dedupe).
   */
  duplicateShare?: number;
  /**
   * Share (0..1, default 0) of messages whose statuses arrive in reverse order (read before
   * delivered before sent, or failed before sent) while keeping their true timestamps:
   * arrival order is not event order (reference §3.1 Ordering).
   */
  reorderShare?: number;
  /** Whether a failed message gets `sent` before its `failed` (default true; Meta does both). */
  sentBeforeFailed?: boolean;
  /**
   * Whether sent, delivered and read name the recipient's business-scoped user ID, as Meta's
   * do since April 2026: in the change's `value.contacts[]` (`wa_id`, `user_id`), beside the
   * statuses, never inside a status; `failed` has no contact (Meta's business-scoped user ID
   * page, test/fixtures/meta-pages). Default true; false plays the webhooks of before.
   */
  userIds?: boolean;
  /**
   * Which statuses also carry `recipient_user_id`. Meta's business-scoped user ID page said
   * "only if you sent the message to the user's BSUID" (November 2025), then "always", except a
   * `failed` status of a send to a phone (June 2026): `always` (the default) plays the newer,
   * `sent-to-user-id` the older, where a client finds a phone send's user ID in `contacts[]` only.
   */
  recipientUserIds?: 'always' | 'sent-to-user-id';
}

type Resolved = Required<Omit<StatusWebhookSettings, keyof WebhookTarget | keyof StatusPricingSettings>>;

interface DueStatus {
  phoneNumberId: string;
  item: Record<string, unknown>;
  /** The recipient as the change's `contacts[]` names them (sent, delivered, read). */
  contact?: StatusContact;
}

const MAX_PER_POST = 1000;
/** Statuses due within the same SLOT_MS share one timer (see #later). */
const SLOT_MS = 10;

/**
 * The sandbox's status webhooks, as Meta sends them (reference §3): after an accepted send,
 * `sent`, then `delivered`, then (for a share) `read`; or, for a send Meta reports failed
 * only by webhook, `sent` then `failed` with the error object (§2.2). Statuses due together
 * go in one POST (at most 1,000); the poster signs and retries each POST. Shares (read,
 * duplicated, reordered) are spread evenly, not drawn, so a run is the same every time.
 */
export class StatusWebhookSender {
  readonly #s: Resolved;
  readonly #poster: WebhookSink;
  readonly #pricing: StatusPricingSettings;
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Slot (time / SLOT_MS, rounded down) → what falls due in it. */
  readonly #slots = new Map<number, (() => void)[]>();
  #due: DueStatus[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #delivered = 0;
  #read = 0;
  #messages = 0;
  #reordered = 0;
  #statuses = 0;
  #duplicated = 0;

  constructor(settings: StatusWebhookSettings, poster: WebhookSink) {
    this.#s = {
      sentAfterMs: settings.sentAfterMs ?? 100,
      deliveredAfterMs: settings.deliveredAfterMs ?? 500,
      readAfterMs: settings.readAfterMs ?? 2000,
      readShare: settings.readShare ?? 0.5,
      batchMs: settings.batchMs ?? 50,
      duplicateShare: settings.duplicateShare ?? 0,
      reorderShare: settings.reorderShare ?? 0,
      sentBeforeFailed: settings.sentBeforeFailed ?? true,
      userIds: settings.userIds ?? true,
      recipientUserIds: settings.recipientUserIds ?? 'always',
    };
    for (const key of ['readShare', 'duplicateShare', 'reorderShare'] as const) {
      const share = this.#s[key];
      if (!(share >= 0 && share <= 1)) throw new RangeError(`webhooks.${key} must be between 0 and 1, got ${share}`);
    }
    this.#poster = poster;
    this.#pricing = {
      ...(settings.pricingOn === undefined ? {} : { pricingOn: settings.pricingOn }),
      ...(settings.version === undefined ? {} : { version: settings.version }),
    };
  }

  /** An accepted send: its statuses are scheduled. */
  accepted(message: AcceptedMessage): void {
    if (this.#poster.closed) return;
    const timeline = this.#timeline(message);
    const body = message.body as { biz_opaque_callback_data?: unknown };
    const userId = message.recipientUserId ?? sandboxUserId(message.waId);
    // A send to a user ID the sandbox cannot tie to a phone has no phone to name (Meta leaves `recipient_id` out then).
    const phone = message.waId === '' ? {} : { recipient_id: message.waId };
    const base = {
      id: message.wamid,
      ...phone,
      ...(typeof body.biz_opaque_callback_data === 'string' ? { biz_opaque_callback_data: body.biz_opaque_callback_data } : {}),
    };
    const contact: StatusContact | undefined = this.#s.userIds
      ? { ...(message.waId === '' ? {} : { wa_id: message.waId }), user_id: userId }
      : undefined;
    // A send addressed to the user ID always names it; a phone send's statuses do as the page of the time says, never on `failed`.
    const named = (status: string): Record<string, unknown> =>
      message.recipientUserId !== undefined
        ? { recipient_user_id: message.recipientUserId }
        : this.#s.userIds && this.#s.recipientUserIds === 'always' && status !== 'failed'
          ? { recipient_user_id: userId }
          : {};
    // Reordered: the last status is sent first, each keeping the timestamp of when it happened.
    const reorder = timeline.length > 1 && this.#evenly('reorder');
    timeline.forEach(({ status, afterMs, extra }, i) => {
      const at = String(Math.floor((message.receivedAt + afterMs) / 1000));
      const item = { ...base, status, timestamp: at, ...named(status), ...statusPricingFields(message, status, this.#pricing), ...extra };
      const due: DueStatus = {
        phoneNumberId: message.phoneNumberId,
        item,
        ...(status === 'failed' || contact === undefined ? {} : { contact }),
      };
      const sendAfter = reorder ? (timeline[timeline.length - 1 - i]?.afterMs ?? afterMs) : afterMs;
      this.#later(sendAfter, () => this.#enqueue(due));
    });
  }

  #timeline(message: AcceptedMessage): { status: string; afterMs: number; extra?: Record<string, unknown> }[] {
    const held = message.heldForMs;
    if (held === undefined) return this.#plainTimeline(message);
    // Held for quality assessment: nothing until its release; a dropped one never left, so no `sent`.
    if (message.failure !== undefined) return [{ status: 'failed', afterMs: held, extra: { errors: [webhookError(message.failure)] } }];
    return this.#plainTimeline(message).map((step) => ({ ...step, afterMs: step.afterMs + held }));
  }

  #plainTimeline(message: AcceptedMessage): { status: string; afterMs: number; extra?: Record<string, unknown> }[] {
    const s = this.#s;
    if (message.failure !== undefined) {
      const failed = { status: 'failed', afterMs: s.deliveredAfterMs, extra: { errors: [webhookError(message.failure)] } };
      return s.sentBeforeFailed ? [{ status: 'sent', afterMs: s.sentAfterMs }, failed] : [{ ...failed, afterMs: s.sentAfterMs }];
    }
    const timeline = [
      { status: 'sent', afterMs: s.sentAfterMs },
      { status: 'delivered', afterMs: s.deliveredAfterMs },
    ];
    this.#delivered++;
    if (this.#read < Math.floor(this.#delivered * s.readShare)) {
      this.#read++;
      timeline.push({ status: 'read', afterMs: s.readAfterMs });
    }
    return timeline;
  }

  /** Whether this message (reorder) or status (duplicate) is one of the share: an even spread. */
  #evenly(what: 'reorder' | 'duplicate'): boolean {
    if (what === 'reorder') {
      this.#messages++;
      if (this.#reordered >= Math.floor(this.#messages * this.#s.reorderShare)) return false;
      this.#reordered++;
      return true;
    }
    this.#statuses++;
    if (this.#duplicated >= Math.floor(this.#statuses * this.#s.duplicateShare)) return false;
    this.#duplicated++;
    return true;
  }

  /**
   * Runs `run` about `ms` from now (up to SLOT_MS early): statuses falling due in the same
   * slot share one timer. One timer per status (three per message) cost the sandbox a sixth of
   * a core at 3,500 messages/s, on the machine the benchmark shares with the worker.
   */
  #later(ms: number, run: () => void): void {
    const slot = Math.floor((Date.now() + ms) / SLOT_MS);
    let bucket = this.#slots.get(slot);
    if (bucket === undefined) {
      const due: (() => void)[] = [];
      bucket = due;
      this.#slots.set(slot, due);
      const timer = setTimeout(
        () => {
          this.#timers.delete(timer);
          this.#slots.delete(slot);
          for (const later of due) later();
        },
        Math.max(0, slot * SLOT_MS - Date.now()),
      );
      this.#timers.add(timer);
    }
    bucket.push(run);
  }

  #enqueue(due: DueStatus, copy = false): void {
    this.#due.push(due);
    // The copy goes out past the next batch, as a separate delivery of the same status.
    if (!copy && this.#evenly('duplicate')) this.#later(2 * this.#s.batchMs + 1, () => this.#enqueue(due, true));
    if (this.#due.length >= MAX_PER_POST) this.#flush();
    else this.#flushTimer ??= setTimeout(() => this.#flush(), this.#s.batchMs);
  }

  #flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    while (this.#due.length > 0) this.#poster.post(statusesPayload(this.#due.splice(0, MAX_PER_POST)));
  }

  /** Statuses not yet due are dropped (the poster's close ends POSTs under way). */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#slots.clear();
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
  }
}
